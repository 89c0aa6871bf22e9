import { ulid } from 'ulid'
import type { PolicyRepository, PolicyRow } from '../store/index.js'
import type { Actor, AuditEvents } from '../audit/index.js'
import { isValidKey } from '../skill/index.js'
import { ROLES } from '../abilities/index.js'
import { POLICY_DECISIONS, POLICY_LEVELS, type PolicyDecision, type PolicyLevel } from './decide-policy.js'

// A role override names a person's role, or `agent` for every agent key.
const SUBJECT_ROLES: readonly string[] = [...ROLES, 'agent']
const EDGE_SUBJECT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}(=[A-Za-z0-9_.-]{0,63})?$/

export interface PolicyInput {
  skill: string
  level: PolicyLevel
  /** Agent (id, name or alias), role, key id/name, or edge (name, id or `label=value`); ignored for the global level. */
  subject?: string
  decision: PolicyDecision
}

export interface Policy {
  id: string
  skill: string
  level: PolicyLevel
  subject: string
  decision: PolicyDecision
  createdBy: string
  createdAt: string
}

export type PolicyResult = { ok: true; policy: Policy } | { ok: false; message: string }

/** Sparse ALWAYS / ASK / DENY overrides, cached for the invoke path and refreshed with the catalog. */
export class Policies {
  #rows: PolicyRow[] = []
  #signature = ''
  /** Called after a refresh that found different policies. */
  onChange: () => void = () => {}

  constructor(
    private readonly repo: PolicyRepository,
    private readonly events: AuditEvents,
    private readonly resolveAgent: (label: string) => string | undefined,
  ) {}

  async refresh(): Promise<void> {
    this.#rows = await this.repo.list()
    const signature = JSON.stringify(this.#rows)
    if (signature === this.#signature) return
    this.#signature = signature
    this.onChange()
  }

  rows(): readonly PolicyRow[] {
    return this.#rows
  }

  list(): Policy[] {
    return this.#rows.map(toPolicy)
  }

  /** `origin.approvalId`: the approval an approver made this override with (scope `always`), named in its event. */
  async set(input: PolicyInput, actor: Actor, now: string, origin?: { approvalId: string }): Promise<PolicyResult> {
    if (input.skill !== '*' && !isValidKey(input.skill)) return { ok: false, message: `skill must be a skill key or "*", got ${JSON.stringify(input.skill)}` }
    if (!POLICY_LEVELS.includes(input.level)) return { ok: false, message: `level must be one of ${POLICY_LEVELS.join(', ')}` }
    if (!POLICY_DECISIONS.includes(input.decision)) return { ok: false, message: `decision must be one of ${POLICY_DECISIONS.join(', ')}` }
    let subject = '*'
    if (input.level !== 'global') {
      if (!input.subject) return { ok: false, message: `a ${input.level} policy needs a subject` }
      subject = input.subject
      if (input.level === 'agent') {
        const id = this.resolveAgent(input.subject)
        if (!id) return { ok: false, message: `unknown agent "${input.subject}"` }
        subject = id
      }
      if (input.level === 'role' && !SUBJECT_ROLES.includes(subject)) return { ok: false, message: `role must be one of ${SUBJECT_ROLES.join(', ')}` }
      if (input.level === 'edge' && !EDGE_SUBJECT.test(subject)) {
        return { ok: false, message: `an edge policy names an edge (its name or id) or a label as label=value, got ${JSON.stringify(subject)}` }
      }
    }
    const existing = await this.repo.find(input.skill, input.level, subject)
    const row: PolicyRow = {
      id: existing?.id ?? ulid(),
      skill_key: input.skill,
      level: input.level,
      subject,
      decision: input.decision,
      created_by: actor.name,
      created_at: now,
    }
    await this.repo.upsert(row)
    await this.events.record('policy.set', `policy:${row.id}`, actor, {
      skill: row.skill_key,
      level: row.level,
      subject: row.subject,
      decision: row.decision,
      previous: existing?.decision ?? null,
      ...(origin && { approvalId: origin.approvalId }),
    })
    await this.refresh()
    return { ok: true, policy: toPolicy(row) }
  }

  async clear(id: string, actor: Actor): Promise<Policy | undefined> {
    const row = await this.repo.delete(id)
    if (!row) return undefined
    await this.events.record('policy.cleared', `policy:${id}`, actor, {
      skill: row.skill_key,
      level: row.level,
      subject: row.subject,
      decision: row.decision,
    })
    await this.refresh()
    return toPolicy(row)
  }
}

function toPolicy(row: PolicyRow): Policy {
  return {
    id: row.id,
    skill: row.skill_key,
    level: row.level as PolicyLevel,
    subject: row.subject,
    decision: row.decision as PolicyDecision,
    createdBy: row.created_by,
    createdAt: row.created_at,
  }
}
