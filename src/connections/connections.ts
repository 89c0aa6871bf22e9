import { sealedBinding, type ConnectionValueMeta, type ConnectionValueRepository, type ConnectionValueId } from '../store/index.js'
import type { Actor, AuditEvents } from '../audit/index.js'
import { READY_CONNECTION, VALUE_NAME, VALUE_NAME_RULE } from '../skill/index.js'
import type { SecretsKey } from './secrets-key.js'
import { ConnectionValueError } from './connection-value-error.js'
import {
  MAX_VALUE_BYTES,
  type ConnectionNeeds,
  type ConnectionState,
  type ConnectionValueInfo,
  type Subjects,
  type ValueKind,
  type ValueOwner,
  type ValueScope,
} from './connection-types.js'

type ResealGuard = Parameters<ConnectionValueRepository['resealAll']>[2]

export interface ConnectionsDeps {
  repo: ConnectionValueRepository
  key: SecretsKey
  events: AuditEvents
  now: () => string
}

/** What resolving a skill's needs for one call found: the values, and what is missing. */
export interface Resolved {
  secrets: Map<string, string>
  settings: Map<string, string>
  missing: ConnectionState['missing']
}

/**
 * Secrets and settings skills are connected with. Values are sealed in the database and opened
 * only for a call that declared them; what exists (names and owners, never values) is kept in
 * memory so listings can tell each caller whether a skill is ready without reading the database.
 */
export class Connections {
  readonly #deps: ConnectionsDeps
  // Which values exist, with their versions: a rotation is a change too (an MCP server reconnects).
  #present = new Map<string, number>()
  // A value sealed under the old key must not land after a rotation re-sealed the rest: sets and rotations take turns.
  #turn: Promise<unknown> = Promise.resolve()
  onChange: (() => void) | null = null

  constructor(deps: ConnectionsDeps) {
    this.#deps = deps
  }

  /** Reload which values exist (other managers and the CLI change them); tells listeners when that changed. */
  async refresh(): Promise<void> {
    const rows = await this.#deps.repo.list()
    const next = new Map(rows.map((row) => [presenceKey(row), Number(row.version)]))
    const changed = next.size !== this.#present.size || [...next].some(([k, version]) => this.#present.get(k) !== version)
    this.#present = next
    if (changed) this.onChange?.()
  }

  async set(kind: ValueKind, name: string, value: unknown, owner: ValueOwner, actor: Actor): Promise<ConnectionValueInfo> {
    const id = identity(kind, name, owner)
    if (typeof value !== 'string' || value === '') throw new ConnectionValueError(`the value of ${kind} ${name} must be a non-empty string`)
    if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw new ConnectionValueError(`the value of ${kind} ${name} is larger than ${MAX_VALUE_BYTES} bytes`)
    const updatedAt = this.#deps.now()
    // By name only: the value is never audited. The event commits with the change, or neither does.
    const version = await this.#inTurn(() =>
      this.#deps.repo.put(id, this.#deps.key.seal(value, boundTo(id)), updatedAt, actor.name, (v) =>
        this.#deps.events.row(`${kind}.set`, `${kind}:${name}`, actor, { scope: id.scope, subject: id.subject || null, version: v }),
      ),
    )
    await this.refresh()
    return { ...info({ ...id, version, updated_at: updatedAt, updated_by: actor.name }), ...(kind === 'setting' && { value }) }
  }

  async delete(kind: ValueKind, name: string, owner: ValueOwner, actor: Actor): Promise<ConnectionValueInfo | null> {
    const deleted = await this.#deps.repo.delete(identity(kind, name, owner), (row) =>
      this.#deps.events.row(`${kind}.delete`, `${kind}:${name}`, actor, { scope: row.scope, subject: row.subject || null, version: Number(row.version) }),
    )
    if (!deleted) return null
    await this.refresh()
    return info(deleted)
  }

  /**
   * Re-seal every stored value under `next`, in one transaction with the fingerprint managers
   * check at start (`guard` throws to abort it); from then on this instance seals and opens with `next`.
   */
  rotateKey(next: SecretsKey, fingerprintSetting: string, guard: ResealGuard, actor: Actor): Promise<{ resealed: number; unreadable: number }> {
    return this.#inTurn(async () => {
      const previous = this.#deps.key
      const counts = await this.#deps.repo.resealAll(
        (sealed, bound) => {
          const value = previous.open(sealed, bound)
          return value === null ? null : next.seal(value, bound)
        },
        { setting: fingerprintSetting, from: previous.fingerprint(), to: next.fingerprint() },
        guard,
        (c) => this.#deps.events.row('secrets.key_rotated', 'secrets', actor, { ...c, fingerprint: next.fingerprint() }),
      )
      this.#deps.key = next
      return counts
    })
  }

  /** The key values are sealed with now: it changes when the key is rotated. */
  get key(): SecretsKey {
    return this.#deps.key
  }

  #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#turn.then(work)
    this.#turn = run.catch(() => {})
    return run
  }

  /** Every stored value of a kind, never a secret's value. */
  async list(kind: ValueKind): Promise<ConnectionValueInfo[]> {
    const rows = (await this.#deps.repo.list()).filter((r) => r.kind === kind)
    if (kind === 'secret') return rows.map(info)
    const values = await this.#deps.repo.withValues(kind)
    const byKey = new Map(values.map((r) => [presenceKey(r), this.#open(r)]))
    return rows.map((r) => ({ ...info(r), value: byKey.get(presenceKey(r)) ?? '[unreadable]' }))
  }

  /**
   * Whether a skill can run for a caller, from what exists (no database read): what its source
   * waits for first, then its own declared values.
   */
  state(needs: ConnectionNeeds, subjects: Subjects): ConnectionState {
    const waiting = awaitingOf(needs)
    if (waiting) return { state: waiting.secrets.length > 0 ? 'needs_auth' : 'needs_input', missing: waiting }
    if (needs.secrets.length === 0 && needs.settings.length === 0) return READY_CONNECTION
    const secrets = needs.secrets.filter((name) => !this.#has('secret', name, subjects))
    const settings = needs.settings.filter((name) => !this.#has('setting', name, subjects))
    if (secrets.length === 0 && settings.length === 0) return READY_CONNECTION
    return { state: secrets.length > 0 ? 'needs_auth' : 'needs_input', missing: { secrets, settings } }
  }

  /** The values a call needs, read and opened now, each from the most specific owner that has it. */
  async resolve(needs: ConnectionNeeds, subjects: Subjects): Promise<Resolved> {
    const [secrets, settings] = await Promise.all([this.#resolve('secret', needs.secrets, subjects), this.#resolve('setting', needs.settings, subjects)])
    return {
      secrets,
      settings,
      missing: { secrets: needs.secrets.filter((n) => !secrets.has(n)), settings: needs.settings.filter((n) => !settings.has(n)) },
    }
  }

  async #resolve(kind: ValueKind, names: readonly string[], subjects: Subjects): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    if (names.length === 0) return out
    const rows = await this.#deps.repo.candidates(kind, names, subjects)
    const rank = { user: 0, agent: 1, global: 2 } as Record<string, number>
    rows.sort((a, b) => rank[a.scope]! - rank[b.scope]!)
    for (const row of rows) {
      if (out.has(row.name)) continue
      const value = this.#open(row)
      // A value sealed for another row, or under another key, counts as missing rather than leaking garbage.
      if (value !== null) out.set(row.name, value)
    }
    return out
  }

  #open(row: ConnectionValueId & { sealed: string }): string | null {
    return this.#deps.key.open(row.sealed, boundTo(row))
  }

  #has(kind: ValueKind, name: string, subjects: Subjects): boolean {
    return (
      (subjects.user !== null && this.#present.has(presenceKey({ kind, name, scope: 'user', subject: subjects.user }))) ||
      (subjects.agent !== null && this.#present.has(presenceKey({ kind, name, scope: 'agent', subject: subjects.agent }))) ||
      this.#present.has(presenceKey({ kind, name, scope: 'global', subject: '' }))
    )
  }
}

/** What a skill's source still waits for (global values it connects with), or null. */
export function awaitingOf(needs: ConnectionNeeds): ConnectionState['missing'] | null {
  const awaiting = needs.awaiting?.()
  const secrets = awaiting?.secrets ?? []
  const settings = awaiting?.settings ?? []
  return secrets.length > 0 || settings.length > 0 ? { secrets: [...secrets], settings: [...settings] } : null
}

function identity(kind: ValueKind, name: string, owner: ValueOwner): ConnectionValueId {
  if (typeof name !== 'string' || !VALUE_NAME.test(name)) {
    throw new ConnectionValueError(`${kind} name ${JSON.stringify(name)} is not valid (${VALUE_NAME_RULE})`)
  }
  if (owner.agent && owner.user) throw new ConnectionValueError(`a ${kind} belongs to an agent or a user, not both`)
  // An empty owner (an unset shell variable) must not quietly become everyone's value.
  for (const [field, given] of Object.entries(owner)) {
    if (given !== undefined && given !== null && (typeof given !== 'string' || given.trim() === '')) {
      throw new ConnectionValueError(`the ${field} of a ${kind} must be a non-empty name (leave it out for the global value)`)
    }
  }
  const scope: ValueScope = owner.user ? 'user' : owner.agent ? 'agent' : 'global'
  return { kind, name, scope, subject: owner.user ?? owner.agent ?? '' }
}

function boundTo(id: ConnectionValueId): string {
  return sealedBinding.connectionValue(id)
}

function presenceKey(id: ConnectionValueId): string {
  return `${id.kind}\0${id.name}\0${id.scope}\0${id.subject}`
}

function info(row: ConnectionValueMeta): ConnectionValueInfo {
  return {
    kind: row.kind as ValueKind,
    name: row.name,
    scope: row.scope as ValueScope,
    subject: row.subject === '' ? null : row.subject,
    version: Number(row.version),
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
  }
}
