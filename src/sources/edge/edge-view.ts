import type { EdgeRow } from '../../store/index.js'
import type { EdgeInfo } from '../../skill/index.js'
import type { OfferedSkill } from './protocol.js'

/** An edge as the API, the CLI and the console show it. */
export interface EdgeView {
  id: string
  name: string
  /** Set at enrollment by an admin: what policies match (`env=prod`). */
  labels: Record<string, string>
  hostname: string | null
  os: string | null
  arch: string | null
  version: string | null
  online: boolean
  /** The manager holding its connection, while online. */
  managerId: string | null
  connectedSince: string | null
  /** Its last heartbeat (or when it went offline). */
  lastSeenAt: string | null
  /** The secret names an admin granted it: calls of its packs carry those they declare, no others. */
  secrets: string[]
  /** What it offers, with the class it declares and whether each can run there now. */
  skills: Array<{ key: string; class: string; available: boolean; unavailableReason: string | null }>
  createdAt: string
  createdBy: string
  revokedAt: string | null
  /** When its token stops working (null: never, until rotated or revoked). */
  tokenExpiresAt: string | null
}

/** The edge row with its parsed JSON, as the directory keeps it. */
export interface EdgeRecord {
  row: EdgeRow
  info: EdgeInfo
  skills: OfferedSkill[]
  /** The same by key (the first where an announcement repeats one). */
  offers: Map<string, OfferedSkill>
  secrets: string[]
}

export function toRecord(row: EdgeRow): EdgeRecord {
  const skills = parseArray(row.skills) as OfferedSkill[]
  const offers = new Map<string, OfferedSkill>()
  for (const skill of skills) if (!offers.has(skill.key)) offers.set(skill.key, skill)
  return {
    row,
    info: { id: row.id, name: row.name, labels: parseObject(row.labels) as Record<string, string> },
    skills,
    offers,
    secrets: parseArray(row.secrets).filter((s): s is string => typeof s === 'string'),
  }
}

export function toEdgeView(record: EdgeRecord, online: boolean): EdgeView {
  const { row } = record
  return {
    id: row.id,
    name: row.name,
    labels: record.info.labels,
    hostname: row.hostname,
    os: row.os,
    arch: row.arch,
    version: row.version,
    online,
    managerId: online ? row.manager_id : null,
    connectedSince: online ? row.connected_at : null,
    lastSeenAt: row.last_seen_at,
    secrets: record.secrets,
    skills: record.skills.map((s) => ({ key: s.key, class: s.class, available: !s.unavailable, unavailableReason: s.unavailable ?? null })),
    createdAt: row.created_at,
    createdBy: row.created_by,
    revokedAt: row.revoked_at,
    tokenExpiresAt: row.token_expires_at,
  }
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const value = JSON.parse(json) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

function parseArray(json: string): unknown[] {
  try {
    const value = JSON.parse(json) as unknown
    return Array.isArray(value) ? value : []
  } catch {
    return []
  }
}
