import MiniSearch from 'minisearch'
import { monotonicFactory } from 'ulid'
import type { Logger } from 'pino'
import type { LearningRepository, LearningRow, LeaseRepository } from '../store/index.js'
import type { Actor, AuditEvents } from '../audit/index.js'
import { processTerm, tokenize } from '../discovery/index.js'
import { DECAY, daysBetween, decayed, isDeprecated } from './decay.js'
import { LearningError } from './learning-error.js'
import { LEARNING_LIMITS, type Learning } from './learning.js'

export interface LearningsDeps {
  repo: LearningRepository
  leases: LeaseRepository
  events: AuditEvents
  /** The time decay is measured against (tests pass a fake). */
  clock: () => Date
  managerId: string
  logger: Logger
  /** An agent's id for a name, alias or id. */
  resolveAgent: (label: string) => string | undefined
}

/** Where a learning came from: the skill, agent and call that made it, and who called. */
export interface LearningOrigin {
  skill: string | null
  agentId: string | null
  callId: string | null
  caller: Actor
}

export interface LearningListQuery {
  status?: 'active' | 'deprecated'
  category?: 'discovery' | 'pattern'
  /** An agent by name, alias or id. */
  agent?: string
  skill?: string
  /** 1–1000, default 100. */
  limit?: number
}

export interface RecalledLearning extends Learning {
  /** Relevance to the query times (0.5 + importance). */
  score: number
}

const DAY_MS = 24 * 60 * 60 * 1000
const SWEEP_LEASE = 'learnings_decay'
const TRY_EVERY_MS = 60_000
// Recall ranks at most this many active learnings, the most important first.
const RECALL_POOL = 5_000

interface RecallDoc {
  id: string
  title: string
  content: string
  tags: string
}
// A use no run reported back on within this long is forgotten by the daily sweep.
const USE_KEPT_DAYS = 30
const CATEGORIES = new Set(['discovery', 'pattern'])

/**
 * Learnings: notes skills leave (`ctx.learn`) for later calls. Importance decays daily toward a
 * floor; runs that used a learning and succeeded reinforce it; admins verify or disprove it. The
 * daily sweep (decay persisted, deprecation) runs on one manager, whichever takes the lease.
 */
export class Learnings {
  readonly #deps: LearningsDeps
  readonly #nextId = monotonicFactory()
  #triedAt = 0
  // A learning's text never changes once recorded: the recall index keeps it, and each call reads only which are usable and how important.
  #indexedIds = new Set<string>()
  readonly #recallIndex = new MiniSearch<RecallDoc>({ fields: ['title', 'content', 'tags'], tokenize, processTerm })

  constructor(deps: LearningsDeps) {
    this.#deps = deps
  }

  async record(input: unknown, origin: LearningOrigin): Promise<{ id: string }> {
    const checked = checkLearning(input)
    const now = this.#deps.clock().toISOString()
    const id = this.#nextId()
    await this.#deps.repo.insert({
      id,
      ...checked,
      tags: JSON.stringify(checked.tags),
      importance_at: now,
      status: 'active',
      verification: null,
      skill_key: origin.skill,
      agent_id: origin.agentId,
      call_id: origin.callId,
      caller_id: origin.caller.id,
      caller_name: origin.caller.name,
      created_at: now,
      updated_at: now,
    })
    return { id }
  }

  async list(q: LearningListQuery = {}): Promise<Learning[]> {
    const limit = q.limit ?? 100
    if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) throw new LearningError('limit must be from 1 to 1000')
    if (q.status !== undefined && q.status !== 'active' && q.status !== 'deprecated')
      throw new LearningError(`status must be active or deprecated, not ${JSON.stringify(q.status)}`)
    if (q.category !== undefined && !CATEGORIES.has(q.category))
      throw new LearningError(`category must be discovery or pattern, not ${JSON.stringify(q.category)}`)
    let agentId: string | undefined
    if (q.agent !== undefined) {
      agentId = this.#deps.resolveAgent(q.agent)
      if (!agentId) throw new LearningError(`unknown agent "${q.agent}"`)
    }
    const rows = await this.#deps.repo.list({ status: q.status, category: q.category, agentId, skill: q.skill, limit })
    const now = this.#deps.clock()
    return rows.map((row) => toLearning(row, now))
  }

  async get(id: string): Promise<Learning | null> {
    const row = await this.#deps.repo.get(id)
    return row ? toLearning(row, this.#deps.clock()) : null
  }

  /** An admin vouches for it: +0.15 (at most 1), active again if it was deprecated. Null when there is no such learning. */
  verify(id: string, actor: Actor): Promise<Learning | null> {
    return this.#judge(id, actor, 'verify', (current) => Math.min(1, current + DECAY.verify))
  }

  /** An admin refutes it: importance 0.05, and neither recalled nor put in prompts again (until verified). */
  disprove(id: string, actor: Actor): Promise<Learning | null> {
    return this.#judge(id, actor, 'disprove', () => DECAY.disproved)
  }

  async #judge(id: string, actor: Actor, action: 'verify' | 'disprove', next: (current: number) => number): Promise<Learning | null> {
    const verification = action === 'verify' ? 'verified' : 'disproved'
    const changed = await this.#adjust(id, (current) => ({
      importance: next(current),
      verification,
      ...(action === 'verify' && { status: 'active' }),
    }))
    if (!changed) return null
    await this.#deps.events.record(`learning.${action}`, `learning:${id}`, actor, { title: changed.title, importance: round(changed.importance) })
    return toLearning(changed, this.#deps.clock())
  }

  /**
   * Active learnings nobody disproved that fit a query, best first: MiniSearch (BM25 with
   * discovery's words: stemmed, stop words dropped, prefixes and small typos matched) over title,
   * content and tags, weighted by importance. A conversation given results counts them as used.
   */
  async recall(query: string, options: { limit?: number; category?: string; conversationId?: string | null } = {}): Promise<RecalledLearning[]> {
    if (typeof query !== 'string' || query.trim() === '') throw new LearningError('the query is empty')
    const now = this.#deps.clock()
    const usable = await this.#usableIndexed()
    const ranked = this.#recallIndex
      .search(query, {
        boost: { title: 2, tags: 1.5 },
        prefix: (term) => term.length > 3,
        fuzzy: (term) => (term.length > 4 ? 0.2 : false),
        filter: (hit) => {
          const meta = usable.get(hit.id as string)
          return meta !== undefined && (options.category === undefined || meta.category === options.category)
        },
      })
      .map((hit) => {
        const meta = usable.get(hit.id as string)!
        return { id: meta.id, score: round(hit.score * (0.5 + round(decayed(Number(meta.importance), daysBetween(meta.importance_at, now))))) }
      })
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, options.limit ?? 5)
    const rows = new Map((await this.#deps.repo.byIds(ranked.map((r) => r.id))).map((row) => [row.id, row]))
    const found = ranked.filter((r) => rows.has(r.id)).map((r) => ({ ...toLearning(rows.get(r.id)!, now), score: r.score }))
    if (options.conversationId)
      await this.used(
        options.conversationId,
        found.map((l) => l.id),
      )
    return found
  }

  /** The usable learnings now, by id, with the recall index holding exactly their text. */
  async #usableIndexed(): Promise<Map<string, { id: string; category: string; importance: number; importance_at: string }>> {
    const usable = new Map((await this.#deps.repo.usableMeta(RECALL_POOL)).map((m) => [m.id, m]))
    const index = this.#recallIndex
    const missing = [...usable.keys()].filter((id) => !index.has(id))
    if (missing.length > 0) {
      const rows = await this.#deps.repo.byIds(missing)
      index.addAll(
        rows.filter((r) => !index.has(r.id)).map((r) => ({ id: r.id, title: r.title, content: r.content, tags: (JSON.parse(r.tags) as string[]).join(' ') })),
      )
    }
    // Deprecated and disproved ones leave the index too, so it holds no more than the usable set.
    const gone: string[] = []
    for (const id of this.#indexedIds) if (!usable.has(id)) gone.push(id)
    for (const id of gone) if (index.has(id)) index.discard(id)
    this.#indexedIds = new Set([...usable.keys()].filter((id) => index.has(id)))
    return usable
  }

  /** An agent's most important usable learnings now: its own and those no agent made. */
  async top(agentId: string, count: number): Promise<Learning[]> {
    const now = this.#deps.clock()
    // Stored importance is at most a day stale (the sweep persists decay), so a few more than needed rank right.
    const rows = await this.#deps.repo.usable(count * 4, agentId)
    return rows
      .map((r) => toLearning(r, now))
      .sort((a, b) => b.importance - a.importance || a.id.localeCompare(b.id))
      .slice(0, count)
  }

  /** Note that a conversation (an agent run) was given these learnings. */
  async used(conversationId: string, ids: string[]): Promise<void> {
    await this.#deps.repo.addUses(conversationId, ids, this.#deps.clock().toISOString())
  }

  /** A run that used learnings succeeded: each gains +0.05 (at most 1), once. Returns how many. */
  async reinforce(conversationId: string): Promise<number> {
    let reinforced = 0
    for (const id of await this.#deps.repo.takeUses(conversationId)) {
      if (await this.#adjust(id, (current) => ({ importance: Math.min(1, current + DECAY.reinforce) }))) reinforced++
    }
    return reinforced
  }

  /** A run that used learnings failed: they are not reinforced. */
  async forget(conversationId: string): Promise<void> {
    await this.#deps.repo.takeUses(conversationId)
  }

  /** Persist every active learning's decay and deprecate those old and faint enough. Returns how many were deprecated. */
  async sweep(): Promise<number> {
    const now = this.#deps.clock()
    const at = now.toISOString()
    let deprecated = 0
    for (const row of await this.#deps.repo.active()) {
      const current = decayed(Number(row.importance), daysBetween(row.importance_at, now))
      // Each row only as it was read: a verify or reinforcement landing meanwhile wins over the sweep.
      if (isDeprecated(current, daysBetween(row.created_at, now))) {
        if (await this.#deps.repo.update(row.id, row, { status: 'deprecated', importance: current, importance_at: at, updated_at: at })) deprecated++
      } else if (current !== Number(row.importance)) await this.#deps.repo.update(row.id, row, { importance: current, importance_at: at, updated_at: at })
    }
    await this.#deps.repo.deleteUsesBefore(new Date(now.getTime() - USE_KEPT_DAYS * DAY_MS).toISOString())
    return deprecated
  }

  /**
   * The daily sweep, on whichever manager takes the day's lease first; false when another manager
   * has it or it ran less than a day ago.
   */
  async dailySweep(): Promise<boolean> {
    const now = this.#deps.clock()
    const taken = await this.#deps.leases.claim(SWEEP_LEASE, this.#deps.managerId, now.toISOString(), new Date(now.getTime() + DAY_MS).toISOString())
    if (!taken) return false
    const deprecated = await this.sweep()
    if (deprecated > 0) this.#deps.logger.info({ deprecated }, 'deprecated learnings whose importance decayed away')
    return true
  }

  /** The heartbeat's attempt: at most once a minute per manager, so idle managers don't write every few seconds. */
  async dailySweepDue(): Promise<void> {
    if (Date.now() - this.#triedAt < TRY_EVERY_MS) return
    this.#triedAt = Date.now()
    await this.dailySweep()
  }

  /** Change a learning from its importance now; retried when another manager changed it meanwhile. */
  async #adjust(
    id: string,
    change: (current: number, row: LearningRow) => Partial<Pick<LearningRow, 'importance' | 'status' | 'verification'>>,
  ): Promise<LearningRow | null> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const row = await this.#deps.repo.get(id)
      if (!row) return null
      const now = this.#deps.clock()
      const next = {
        ...change(decayed(Number(row.importance), daysBetween(row.importance_at, now)), row),
        importance_at: now.toISOString(),
        updated_at: now.toISOString(),
      }
      if (await this.#deps.repo.update(id, row, next)) return { ...row, ...next }
    }
    throw new Error(`learning ${id} kept changing under this update; try again`)
  }
}

function checkLearning(input: unknown): Pick<LearningRow, 'category' | 'title' | 'content' | 'importance'> & { tags: string[] } {
  if (typeof input !== 'object' || input === null) throw new LearningError('a learning is an object: { category, title, content, tags?, importance? }')
  const { category, title, content, tags = [], importance = 0.5 } = input as Record<string, unknown>
  if (typeof category !== 'string' || !CATEGORIES.has(category))
    throw new LearningError(`category must be "discovery" or "pattern", not ${JSON.stringify(category)}`)
  const text = (name: string, value: unknown, max: number): string => {
    if (typeof value !== 'string' || value.trim() === '') throw new LearningError(`${name} must be a non-empty string`)
    // Titles and tags are printed on admins' terminals: no control characters (content may have line breaks).
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    if (name !== 'content' && /[\u0000-\u001f\u007f]/.test(value)) throw new LearningError(`${name} must not contain control characters`)
    if (value.length > max) throw new LearningError(`${name} is ${value.length} characters; the most is ${max}`)
    return value
  }
  if (!Array.isArray(tags) || tags.length > LEARNING_LIMITS.tags) throw new LearningError(`tags must be a list of at most ${LEARNING_LIMITS.tags} strings`)
  tags.forEach((tag, i) => text(`tags[${i}]`, tag, LEARNING_LIMITS.tagLength))
  if (typeof importance !== 'number' || !(importance >= 0 && importance <= 1))
    throw new LearningError(`importance must be a number from 0 to 1, not ${JSON.stringify(importance)}`)
  return {
    category,
    title: text('title', title, LEARNING_LIMITS.titleLength),
    content: text('content', content, LEARNING_LIMITS.contentLength),
    tags: tags as string[],
    // Never born below the floor decay stops at.
    importance: Math.max(DECAY.floor, importance),
  }
}

function toLearning(row: LearningRow, now: Date): Learning {
  return {
    id: row.id,
    category: row.category as Learning['category'],
    title: row.title,
    content: row.content,
    tags: JSON.parse(row.tags) as string[],
    importance: round(decayed(Number(row.importance), daysBetween(row.importance_at, now))),
    status: row.status as Learning['status'],
    verification: row.verification as Learning['verification'],
    skill: row.skill_key,
    agent: row.agent_id,
    callId: row.call_id,
    createdBy: { id: row.caller_id, name: row.caller_name },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000
}
