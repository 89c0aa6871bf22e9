import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { monotonicFactory } from 'ulid'
import type { Logger } from 'pino'
import type { EdgeRepository } from '../../store/index.js'
import type { Registry } from '../../registry/index.js'
import { SYSTEM_ACTOR, type Actor, type AuditEvents } from '../../audit/index.js'
import type { EdgeInfo, Skill, SkillDefinition } from '../../skill/index.js'
import { EdgeUnavailable, type EdgeCall, type EdgeResolution, type EdgeRouter } from '../../runtime/index.js'
import { unknownProvider } from '../../config/index.js'
import { EdgeHub } from './edge-hub.js'
import { EdgeRelay, type RelaySignal, type Sealer } from './edge-relay.js'
import { edgeIdOf, hashEdgeToken, newEdgeToken, tokenExpiry, tokenMatches } from './edge-token.js'
import { toEdgeView, toRecord, type EdgeRecord, type EdgeView } from './edge-view.js'
import { CLOSE, edgeName, labels as labelsSchema, secretGrants, type OfferedSkill } from './protocol.js'
import { hostSkills } from './host-skills/index.js'

const edgeIds = monotonicFactory()
const NO_SECRETS: ReadonlyMap<string, string> = new Map()
// The package's own definitions of the built-in host skills: their schemas and classes win over what an edge declares.
const BUILT_INS = new Map<string, SkillDefinition>(hostSkills({ allowRead: [], allowShell: true }).map((d) => [d.key, d]))

export interface EdgesOptions {
  repo: EdgeRepository
  registry: Registry
  events: AuditEvents
  managerId: string
  logger: Logger
  heartbeatMs: number
  maxInFlight: number
  /** Signal other managers (PostgreSQL); absent on SQLite. */
  signal?: (message: RelaySignal) => Promise<void>
  managerAlive(managerId: string): Promise<boolean>
  /** The host skills edges offer changed (the catalog should sync). */
  onSkillsChanged(): void
  now(): string
  /** The time tokens' lifetimes are measured against (ISO; tests pass a fake clock). */
  tokenNow(): string
  /** Seals the secrets of calls relayed through the database. */
  sealer?: Sealer
  /** The config's OAuth providers, which an edge's pack may name. */
  providers: readonly string[]
}

export type EnrollResult = { ok: true; edge: EdgeView; token: string } | { ok: false; code: 'invalid_input' | 'conflict'; message: string }
export type RotateResult = { ok: true; edge: EdgeView; token: string } | { ok: false; code: 'invalid_input' | 'not_found'; message: string }

/**
 * Edges: enrollment, the directory of enrolled edges (who holds each one's connection, what it
 * offers), the host-scope skills they bring into the registry, and the pipeline's route to them,
 * over this manager's tunnel or relayed through the database to the manager that holds it.
 */
export class Edges implements EdgeRouter {
  readonly #o: EdgesOptions
  readonly #hub: EdgeHub
  readonly #relay: EdgeRelay
  #records = new Map<string, EdgeRecord>()
  #byName = new Map<string, EdgeRecord>()
  // Enrolled (not revoked) edges by each skill key their last announcement offers, in enrollment order.
  #bySkill = new Map<string, EdgeRecord[]>()
  #skillsSignature = '[]'
  #refreshing: Promise<void> | null = null
  #again = false
  #closed = false

  constructor(options: EdgesOptions) {
    this.#o = options
    this.#hub = new EdgeHub({
      repo: options.repo,
      managerId: options.managerId,
      logger: options.logger,
      heartbeatMs: options.heartbeatMs,
      maxInFlight: options.maxInFlight,
      refuse: (skill) => this.#refusal(skill),
      onChange: () => {
        void this.refresh()
        void this.#signal({ to: '*', kind: 'edges' })
      },
      managerAlive: options.managerAlive,
      onDuplicate: (row, detail) => {
        options.logger.warn({ edge: row.name, ...detail }, 'a second connection with an edge token was refused: it is connected already')
        options.events
          .record('edge.connection_refused', `edge:${row.id}`, SYSTEM_ACTOR, { name: row.name, reason: 'connected already', ...detail })
          .catch((error: unknown) => options.logger.warn({ err: error }, 'recording a refused edge connection failed'))
      },
      now: options.now,
      tokenNow: options.tokenNow,
    })
    this.#relay = new EdgeRelay({
      repo: options.repo,
      managerId: options.managerId,
      logger: options.logger,
      signal: options.signal,
      // Without signals (SQLite) a relayed call waits about half the holder's poll, plus a few ms.
      pollMs: 25,
      waitPollMs: 5,
      managerAlive: options.managerAlive,
      connection: (id) => this.#hub.connection(id),
      sealer: options.sealer,
    })
    this.#relay.start(() => this.#hub.connectedIds.length > 0)
  }

  /** Take an edge's WebSocket upgrade (the HTTP server hands over requests to the connect path). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#hub.handleUpgrade(request, socket, head)
  }

  /** A signal from another manager. */
  receive(payload: string): void {
    let message: RelaySignal
    try {
      message = JSON.parse(payload) as RelaySignal
    } catch {
      return
    }
    if (message.kind === 'edges') void this.refresh()
    else this.#relay.receive(message)
  }

  /** Enroll an edge: its token is returned once and stored only as a hash; `expiresIn` ("90d") gives it a lifetime. */
  async enroll(input: { name: string; labels?: Record<string, string>; secrets?: string[]; expiresIn?: string }, actor: Actor): Promise<EnrollResult> {
    const name = edgeName.safeParse(input.name)
    if (!name.success) return { ok: false, code: 'invalid_input', message: `name: ${name.error.issues[0]!.message}` }
    const labels = labelsSchema.safeParse(input.labels ?? {})
    if (!labels.success) {
      const issue = labels.error.issues[0]!
      return { ok: false, code: 'invalid_input', message: `labels${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}` }
    }
    const secrets = secretGrants.safeParse(input.secrets ?? [])
    if (!secrets.success) return { ok: false, code: 'invalid_input', message: `secrets: ${secrets.error.issues[0]!.message}` }
    const createdAt = this.#o.now()
    const expiry = tokenExpiry(input.expiresIn, this.#o.tokenNow())
    if (!expiry.ok) return { ok: false, code: 'invalid_input', message: expiry.message }
    const existing = await this.#o.repo.findByName(name.data)
    if (existing && existing.revoked_at === null)
      return { ok: false, code: 'conflict', message: `an edge named "${name.data}" is already enrolled (${existing.id})` }
    const id = edgeIds()
    const token = newEdgeToken(id)
    const row = {
      id,
      name: name.data,
      labels: JSON.stringify(labels.data),
      token_hash: hashEdgeToken(token),
      token_expires_at: expiry.expiresAt,
      created_by: actor.name,
      created_at: createdAt,
      revoked_at: null,
      hostname: null,
      os: null,
      arch: null,
      version: null,
      skills: '[]',
      secrets: JSON.stringify([...new Set(secrets.data)].sort()),
      manager_id: null,
      connected_at: null,
      last_seen_at: null,
    }
    // A revoked edge's name can be enrolled again: the new edge is another one (its audit rows keep their id).
    if (existing) await this.#o.repo.rename(existing.id, `${existing.name}~${existing.id.toLowerCase()}`)
    await this.#o.repo.insert(row)
    await this.#o.events.record('edge.enrolled', `edge:${id}`, actor, {
      name: row.name,
      labels: labels.data,
      secrets: JSON.parse(row.secrets),
      tokenExpiresAt: row.token_expires_at,
    })
    await this.refresh()
    return { ok: true, edge: toEdgeView(toRecord(row), false), token }
  }

  /** Whether a token is an active edge's (a supervisor keeping a token across restarts checks it). */
  async tokenValid(token: string): Promise<boolean> {
    const id = edgeIdOf(token)
    const row = id ? await this.#o.repo.get(id) : undefined
    return (
      row !== undefined &&
      row.revoked_at === null &&
      (row.token_expires_at === null || row.token_expires_at > this.#o.tokenNow()) &&
      tokenMatches(token, row.token_hash)
    )
  }

  /**
   * Give an edge a new token (returned once; `expiresIn` as at enrollment): the old one stops at
   * once, and a connection made with it is closed, on whichever manager holds it.
   */
  async rotate(idOrName: string, input: { expiresIn?: string }, actor: Actor): Promise<RotateResult> {
    const record = this.#find(idOrName, false)
    if (!record) return { ok: false, code: 'not_found', message: `no enrolled edge "${idOrName.slice(0, 100)}"` }
    const expiry = tokenExpiry(input.expiresIn, this.#o.tokenNow())
    if (!expiry.ok) return { ok: false, code: 'invalid_input', message: expiry.message }
    const token = newEdgeToken(record.row.id)
    const row = await this.#o.repo.rotate(record.row.id, hashEdgeToken(token), expiry.expiresAt)
    if (!row) return { ok: false, code: 'not_found', message: `no enrolled edge "${idOrName.slice(0, 100)}"` }
    this.#hub.disconnect(row.id, CLOSE.revoked, "this edge's token was rotated: start it with the new token")
    await this.#o.events.record('edge.rotated', `edge:${row.id}`, actor, { name: row.name, tokenExpiresAt: row.token_expires_at })
    await this.#signal({ to: '*', kind: 'edges' })
    await this.refresh()
    return { ok: true, edge: toEdgeView(toRecord(row), false), token }
  }

  list(): EdgeView[] {
    return [...this.#records.values()].map((r) => toEdgeView(r, this.#online(r)))
  }

  get(idOrName: string): EdgeView | undefined {
    const record = this.#find(idOrName, true)
    return record && toEdgeView(record, this.#online(record))
  }

  /** Revoke an edge: its token stops working and its connection is closed at once, on whichever manager holds it. */
  /**
   * The secret names an edge may receive (replacing its list): a call of a pack on it carries the
   * declared ones it is granted, and one declaring any other is refused before it runs.
   */
  async grantSecrets(
    idOrName: string,
    names: unknown,
    actor: Actor,
  ): Promise<{ ok: true; edge: EdgeView } | { ok: false; code: 'invalid_input' | 'not_found'; message: string }> {
    const parsed = secretGrants.safeParse(names)
    if (!parsed.success) return { ok: false, code: 'invalid_input', message: `secrets: ${parsed.error.issues[0]!.message}` }
    const record = this.#find(idOrName, false)
    if (!record) return { ok: false, code: 'not_found', message: `no enrolled edge "${idOrName.slice(0, 100)}"` }
    const granted = [...new Set(parsed.data)].sort()
    const row = await this.#o.repo.grantSecrets(record.row.id, JSON.stringify(granted))
    if (!row) return { ok: false, code: 'not_found', message: `no enrolled edge "${idOrName.slice(0, 100)}"` }
    await this.#o.events.record('edge.secrets', `edge:${row.id}`, actor, { name: row.name, secrets: granted })
    await this.#signal({ to: '*', kind: 'edges' })
    await this.refresh()
    return { ok: true, edge: toEdgeView(toRecord(row), this.#online(this.#records.get(row.id) ?? record)) }
  }

  async revoke(idOrName: string, actor: Actor): Promise<EdgeView | undefined> {
    const row = await this.#o.repo.revoke(idOrName, this.#o.now())
    if (!row) return undefined
    this.#hub.disconnect(row.id, CLOSE.revoked, 'this edge was revoked')
    await this.#o.events.record('edge.revoked', `edge:${row.id}`, actor, { name: row.name })
    await this.#signal({ to: '*', kind: 'edges' })
    await this.refresh()
    return toEdgeView(toRecord(row), false)
  }

  /** Read the edges again (what other managers changed) and bring the registry's host skills up to date. */
  refresh(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    if (this.#refreshing) {
      this.#again = true
      return this.#refreshing
    }
    this.#refreshing = this.#load()
      .catch((error: unknown) => this.#o.logger.warn({ err: error }, 'reading the edges failed'))
      .finally(() => {
        this.#refreshing = null
        if (this.#again) {
          this.#again = false
          void this.refresh()
        }
      })
    return this.#refreshing
  }

  /** Enrolled edges offering a skill (for the `edge_id` a tool lists). */
  offering(skillKey: string): EdgeInfo[] {
    return this.#offering(skillKey).map((r) => r.info)
  }

  resolve(ref: string | null, skill: Skill): EdgeResolution {
    // Which edges offer the skill only matters to say why a call can't run.
    const names = () => {
      const offering = this.#offering(skill.key).map((r) => `${r.info.name}${this.#online(r) ? '' : ' (offline)'}`)
      return offering.length > 0 ? offering.join(', ') : ''
    }
    if (!ref) {
      const known = names()
      return {
        code: 'invalid_input',
        message: `skill "${skill.key}" runs on an edge: name one with edgeId${known ? ` (edges offering it: ${known})` : ' (no enrolled edge offers it)'}`,
      }
    }
    const record = this.#find(ref, false)
    if (!record) return { code: 'not_found', message: `no enrolled edge "${ref.slice(0, 100)}"` }
    const offer = record.offers.get(skill.key)
    if (!offer) {
      const known = names()
      return {
        code: 'invalid_input',
        message: `edge "${record.info.name}" does not offer skill "${skill.key}"${known ? ` (edges offering it: ${known})` : ''}`,
      }
    }
    if (!this.#online(record)) {
      const seen = record.row.last_seen_at ? `last seen ${record.row.last_seen_at}` : 'it has never connected'
      return { code: 'edge_unavailable', message: `edge "${record.info.name}" is offline (${seen})` }
    }
    if (offer.unavailable) return { code: 'edge_unavailable', message: `skill "${skill.key}" can't run on edge "${record.info.name}": ${offer.unavailable}` }
    // An edge's announcement names the secrets (and the OAuth connection) it wants; only an admin's grant lets them go there.
    const ungranted = wanted(offer).filter((name) => !record.secrets.includes(name))
    if (ungranted.length > 0) {
      return {
        code: 'denied',
        message: `edge "${record.info.name}" declares ${named(offer, ungranted)} for skill "${skill.key}" but is not granted ${ungranted.length === 1 ? 'it' : 'them'}: an admin grants ${ungranted.length === 1 ? 'it' : 'them'} with skillplane edges secrets ${record.info.name} ${[...record.secrets, ...ungranted].join(' ')}`,
      }
    }
    return { edge: record.info }
  }

  dispatch(edge: EdgeInfo, skill: Skill, input: unknown, given: EdgeCall): Promise<unknown> {
    // Only what this edge's own pack declares and it is granted (resolve refused the rest), never another edge's list.
    const record = this.#records.get(edge.id)
    const offer = record?.offers.get(skill.key)
    const declared = offer && wanted(offer)
    const secrets =
      declared?.length && given.secrets.size > 0
        ? new Map([...given.secrets].filter(([name]) => declared.includes(name) && record!.secrets.includes(name)))
        : NO_SECRETS
    const call: EdgeCall = { ...given, secrets }
    const local = this.#hub.connection(edge.id)
    if (local) return local.call(skill.key, input, call)
    const holder = this.#records.get(edge.id)?.row.manager_id
    if (!holder || holder === this.#o.managerId) return Promise.reject(new EdgeUnavailable(`edge "${edge.name}" disconnected before the call was sent`))
    return this.#relay.call(holder, edge.id, edge.name, skill.key, input, call)
  }

  /** Why a skill has no edge to run on now, or null when one online edge can run it. */
  unavailable(skillKey: string): string | null {
    const offering = this.#offering(skillKey)
    if (offering.length === 0) return 'no enrolled edge offers it'
    const online = offering.filter((r) => this.#online(r))
    if (online.length === 0) return `no edge offering it is online (${offering.map((r) => r.info.name).join(', ')})`
    const reasons = online.map((r) => r.offers.get(skillKey)!.unavailable).filter((u): u is string => !!u)
    return reasons.length === online.length ? `on every online edge offering it: ${reasons[0]}` : null
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#relay.close()
    await this.#hub.close()
  }

  async #load(): Promise<void> {
    const rows = await this.#o.repo.list()
    this.#records = new Map(rows.map((row) => [row.id, toRecord(row)]))
    this.#byName = new Map([...this.#records.values()].filter((r) => r.row.revoked_at === null).map((r) => [r.info.name, r]))
    const bySkill = new Map<string, EdgeRecord[]>()
    for (const record of this.#byName.values()) for (const key of record.offers.keys()) bySkill.set(key, [...(bySkill.get(key) ?? []), record])
    this.#bySkill = bySkill
    // A connection whose edge was revoked (by another manager or the CLI) ends here too.
    for (const id of this.#hub.connectedIds) {
      if (this.#records.get(id)?.row.revoked_at != null) this.#hub.disconnect(id, CLOSE.revoked, 'this edge was revoked')
    }
    this.#hub.disconnectRotated((id) => this.#records.get(id)?.row.token_hash)
    this.#registerSkills()
  }

  // The registry holds one host skill per key any enrolled edge offers: the package's definition for
  // built-ins, else the first edge's (by enrollment) announcement. Edges running a key share its schema.
  #registerSkills(): void {
    const { registry, logger } = this.#o
    const chosen = new Map<string, OfferedSkill>()
    for (const record of this.#records.values()) {
      if (record.row.revoked_at !== null) continue
      for (const offer of record.skills) if (!chosen.has(offer.key) && this.#refusal(offer) === null) chosen.set(offer.key, offer)
    }
    const signature = JSON.stringify([...chosen.values()].map((o) => [o.key, BUILT_INS.has(o.key) ? 'built-in' : o]))
    if (signature === this.#skillsSignature) return
    this.#skillsSignature = signature
    registry.removeSource('edge')
    for (const offer of chosen.values()) {
      if (registry.get(offer.key)) continue
      try {
        registry.register(this.#definition(offer), { source: 'edge', origin: BUILT_INS.has(offer.key) ? 'built-in host skill' : 'edge announcement' })
      } catch (error) {
        logger.warn({ skill: offer.key, err: error }, 'an edge skill could not be registered')
      }
    }
    this.#o.onSkillsChanged()
  }

  #definition(offer: OfferedSkill): SkillDefinition {
    const unavailable = () => this.unavailable(offer.key)
    const builtIn = BUILT_INS.get(offer.key)
    if (builtIn) return { ...builtIn, unavailable }
    return {
      key: offer.key,
      title: offer.title,
      description: offer.description,
      class: offer.class,
      scope: 'host',
      category: offer.category ?? 'host',
      tags: offer.tags ?? [],
      input: offer.inputSchema,
      ...(offer.outputSchema && { output: offer.outputSchema }),
      ...(offer.timeoutMs && { timeoutMs: offer.timeoutMs }),
      ...(offer.secrets && { secrets: offer.secrets }),
      ...(offer.oauth && { oauth: offer.oauth }),
      unavailable,
      // Never called: the pipeline dispatches host-scope skills to their edge.
      run: () => {
        throw new EdgeUnavailable(`skill "${offer.key}" runs on edges`)
      },
    }
  }

  // A key another source holds for the manager can't come from an edge.
  #refusal(skill: OfferedSkill): string | null {
    const provider = skill.oauth && unknownProvider(skill.oauth.provider, this.#o.providers)
    if (provider) return provider
    const held = this.#o.registry.get(skill.key)
    if (!held || held.source === 'edge' || held.scope === 'host') return null
    return `the key "${skill.key}" is a ${held.source} skill of the manager (${held.origin})`
  }

  // Enrolled (not revoked) edges whose last announcement offers the key.
  #offering(skillKey: string): EdgeRecord[] {
    return this.#bySkill.get(skillKey) ?? []
  }

  #find(ref: string, includeRevoked: boolean): EdgeRecord | undefined {
    const record = this.#records.get(ref) ?? this.#byName.get(ref)
    if (record && (includeRevoked || record.row.revoked_at === null)) return record
    if (includeRevoked) return [...this.#records.values()].find((r) => r.info.name === ref)
    return undefined
  }

  #online(record: EdgeRecord): boolean {
    if (record.row.revoked_at !== null) return false
    if (this.#hub.connection(record.row.id)) return true
    const holder = record.row.manager_id
    if (!holder || holder === this.#o.managerId) return false
    // Another manager's edge is online while that manager keeps its heartbeat fresh.
    const seen = record.row.last_seen_at ? Date.parse(record.row.last_seen_at) : 0
    return Date.now() - seen < this.#o.heartbeatMs * 3 + 5_000
  }

  async #signal(message: RelaySignal): Promise<void> {
    await this.#o.signal?.(message).catch((error: unknown) => this.#o.logger.warn({ err: error }, 'signalling other managers failed'))
  }
}

/** The values an offer's calls carry: its secrets, and its OAuth connection's token, named after the provider. */
function wanted(offer: OfferedSkill): string[] {
  return [...(offer.secrets ?? []), ...(offer.oauth ? [offer.oauth.provider] : [])]
}

/** "the secret A", "the secrets A, B and the OAuth connection github": what an edge wants, as a refusal names it. */
function named(offer: OfferedSkill, names: string[]): string {
  const secrets = names.filter((n) => offer.secrets?.includes(n))
  const oauth = names.filter((n) => !secrets.includes(n))
  return [
    ...(secrets.length > 0 ? [`the secret${secrets.length === 1 ? '' : 's'} ${secrets.join(', ')}`] : []),
    ...oauth.map((n) => `the OAuth connection ${n}`),
  ].join(' and ')
}
