import { monotonicFactory } from 'ulid'
import type { Logger } from 'pino'
import { READY_CONNECTION, type Caller, type ConnectionState, type Skill } from '../skill/index.js'
import { type Registry, type Catalog, availability } from '../registry/index.js'
import type { Policies } from '../policy/index.js'
import { callAccess, isSharedWith, mayActivate, type AccessView, type BindingView } from '../access/index.js'
import type { AuditRepository, DiscoveryRepository } from '../store/index.js'
import { INSTRUCTION_TOOL_KEYS, type InstructionLibrary, type LibrarySkill } from '../sources/agent-skills/index.js'
import { LexicalIndex } from './lexical-index.js'
import { NeighbourIndex } from './neighbour-index.js'
import { matchedFields } from './matched-fields.js'
import { skillDocument, type BaseDocument } from './skill-document.js'
import { UsageLog, type UsageExample } from './usage-log.js'
import { RelationGraph } from './relation-graph.js'
import { ConversationLog, type Offer } from './conversation-log.js'
import { argumentSummary } from './argument-summary.js'
import { fuseRanks } from './fuse-ranks.js'
import type { Embedder } from './embedder.js'
import { rankingWith, type RankingOverrides, type RankingParameters } from './ranking.js'
import { SemanticIndex } from './semantic-index.js'

export const DISCOVER_KEY = 'discover_skills'
// A fresh ulid() draws 16 random characters one crypto call each (about 45 µs); a monotonic one within a millisecond only counts up.
const exampleId = monotonicFactory()
// Usage older than seven half-lives weighs under 1%: hourly, it is forgotten.
const PRUNE_MS = 60 * 60 * 1000
const DEFAULT_LIMIT = 5
const DESCRIPTION_CHARS = 240
/** A large catalog's core set holds the caller's most used skills: this many, over this many days. */
const MOST_USED = 10
const MOST_USED_DAYS = 7

export interface DiscoverOptions {
  query: string
  /** Most results; default 5. */
  limit?: number
  /** Cut the list to about this many tokens (characters ÷ 4). */
  maxTokens?: number
  /** The agent to discover for (a person acting for it); an agent key always discovers for itself. */
  agent?: string | null
  /** Skills the agent could use but isn't bound to (for admins binding skills). */
  excludeBound?: boolean
  /** The person an agent run acts for: results show the connection state that person's values give, as tool lists do. */
  onBehalfOf?: Caller | null
}

/** Who made a discovery: the caller, and the agent it discovered for. */
export interface Asker {
  caller: Caller
  agent: string | null
}

export interface DiscoveredSkill {
  key: string
  title: string
  description: string
  /** 0–1, relative to the best result of this query. */
  score: number
  /** Why it ranks: the fields its words matched, usage evidence, a relation. */
  why: string[]
  kind: 'skill' | 'instruction'
  class: Skill['class']
  /** A call would wait for approval (by class or policy) before it runs. */
  needsApproval: boolean
  /** Its arguments, compactly: `name: type` with `?` for optional ones. */
  arguments: string
  /** For a host skill, the edges this caller may run it on. */
  edges?: string[]
  /** Whether the secrets and settings it needs are set for this caller; when not, which are missing. */
  connection: ConnectionState
}

export interface DiscoveryAnswer {
  results: DiscoveredSkill[]
  /** Results the caller may use that `maxTokens` left out. */
  omitted: number
}

export interface DiscoveryOptions {
  registry: Pick<Registry, 'list' | 'get'>
  catalog: Catalog
  policies: Pick<Policies, 'rows'>
  edges?: NonNullable<AccessView['sources']>['edges']
  connectionState?: AccessView['skills']['connectionState']
  instructions: () => InstructionLibrary
  repo: DiscoveryRepository
  /** The audit log, for the skills a caller uses most. */
  audit: Pick<AuditRepository, 'mostCalled'>
  logger: Logger
  /** Usage evidence halves in weight every this many ms. */
  halfLifeMs: number
  embedder?: Embedder
  /** This manager, so that it never reads back the requests it stored itself. */
  managerId?: string
  /** Overrides of the default ranking parameters (`discovery.ranking` in the config). */
  ranking?: RankingOverrides
  now?: () => number
}

interface Candidate {
  key: string
  score: number
  why: string[]
  pinned?: boolean
  /** The index words the query matched with: which ones this skill holds is worked out only for the results shown. */
  terms?: string[]
}

/** A skill the caller may call (and how), or an instruction skill it may activate. */
type Usable = { skill: Skill; access: NonNullable<ReturnType<typeof callAccess>> } | { instruction: LibrarySkill }

const INSTRUCTION_TOOLS: ReadonlySet<string> = new Set(INSTRUCTION_TOOL_KEYS)

// Hits beyond these can't make a top 50; scoring them all only feeds the GC.
const LEXICAL_TOP = 200
/** The past requests most like a new one that vote for the skills they led to. */
const NEIGHBOURS = 40
/** Learned requests (and relations) waiting for the store, at most: past this, the oldest are dropped with a warning. */
const MAX_PENDING = 100_000

/**
 * Discovery: ranks the skills a caller may use for a request, from the words of each skill, the
 * requests that led to its calls before, its relations and (optionally) embeddings; learns from
 * the calls that follow a discovery in the same conversation.
 */
export class Discovery {
  readonly #o: DiscoveryOptions
  readonly #index: LexicalIndex
  readonly #neighbours: NeighbourIndex
  readonly #usage = new UsageLog()
  #prunedAt = 0
  readonly #relations = new RelationGraph()
  readonly #log = new ConversationLog<Asker>()
  readonly #semantic: SemanticIndex | undefined
  readonly #now: () => number
  #dirty = true
  /** Skills whose catalog rows changed since they were last indexed (a rebuild takes them all). */
  readonly #dirtyKeys = new Set<string>()
  #documents = new Map<string, BaseDocument>()
  #titles = new Map<string, string>()
  #examplesSeen: string | undefined
  /** The stored requests were read once: from then on, this manager's own writes move the read cursor. */
  #loaded = false
  #relationsSeen: string | undefined
  #pendingExamples: Array<{ id: string; skill_key: string; query: string; created_at: string; manager_id: string | null }> = []
  #pendingRelations: Array<{ from: string; to: string }> = []
  #flushing: Promise<void> = Promise.resolve()
  #timer: NodeJS.Timeout | undefined
  #ranking: RankingParameters

  constructor(options: DiscoveryOptions) {
    this.#o = options
    this.#ranking = rankingWith(options.ranking)
    this.#now = options.now ?? Date.now
    this.#index = new LexicalIndex(options.halfLifeMs, this.#now())
    this.#neighbours = new NeighbourIndex(options.halfLifeMs)
    this.#semantic = options.embedder && new SemanticIndex(options.embedder, options.repo, options.logger)
    this.#timer = setInterval(() => void this.flush(), 1_000)
    this.#timer.unref()
  }

  /** The ranking parameters in use. */
  get ranking(): RankingParameters {
    return this.#ranking
  }

  /** Rank with these overrides of the defaults from now on (the bench's leave-one-set-out tuning; the config sets them at start). */
  setRanking(overrides: RankingOverrides): void {
    this.#ranking = rankingWith(overrides)
  }

  /** Skills, the catalog or instruction skills changed: the next query re-indexes what differs (only these skills' documents, when named). */
  markDirty(keys?: readonly string[]): void {
    if (keys === undefined) this.#dirty = true
    else for (const key of keys) this.#dirtyKeys.add(key)
  }

  /** Load the evidence other managers (or earlier runs) stored since the last look. */
  async refresh(): Promise<void> {
    // A minute of overlap: rows committed late by another manager are not missed (ids dedupe).
    // Evidence older than seven half-lives weighs under 1% and is not loaded at all.
    const oldest = this.#now() - 7 * this.#o.halfLifeMs
    const since = new Date(Math.max(oldest, this.#examplesSeen ? Date.parse(this.#examplesSeen) - 60_000 : 0)).toISOString()
    // Hourly, what weighs nothing any more is forgotten, here and in the database.
    if (this.#now() - this.#prunedAt > PRUNE_MS) {
      this.#prunedAt = this.#now()
      for (const example of this.#usage.prune(oldest)) this.#unlearn(example)
      await this.#o.repo.deleteExamplesBefore(new Date(oldest).toISOString())
    }
    // What this manager learned it knows: only other managers' requests (and older runs') are read.
    const rows = await this.#o.repo.examplesSince(since, this.#o.managerId)
    for (const row of rows) this.#learn({ id: row.id, skill: row.skill_key, query: row.query, at: Date.parse(row.created_at) })
    if (rows.length) this.#seeExamples(rows.at(-1)!.created_at)
    this.#loaded = true
    // Relations are only ever counted up: after the first read, only the pairs counted since (with the same minute of overlap).
    const relations = await this.#o.repo.relations(this.#relationsSeen && new Date(Date.parse(this.#relationsSeen) - 60_000).toISOString())
    for (const row of relations) if (!this.#relationsSeen || row.updated_at > this.#relationsSeen) this.#relationsSeen = row.updated_at
    this.#relations.setLearned(relations)
  }

  /** The index is current and, with an embedder, every skill has its vector (tests, benchmarks). */
  async ready(): Promise<void> {
    this.#sync()
    await this.#semantic?.ready()
  }

  /** Index sizes, for benchmarks and the inventory. */
  stats(): { skills: number; examples: number } {
    this.#sync()
    return { skills: this.#index.size, examples: this.#usage.size }
  }

  async discover(caller: Caller, options: DiscoverOptions): Promise<DiscoveryAnswer> {
    this.#sync()
    const agentId = agentOf(caller, options.agent)
    const excludeBound = options.excludeBound === true
    const checked = new Map<string, Usable | undefined>()
    const usable = (key: string) => {
      if (!checked.has(key)) checked.set(key, this.#usable(caller, agentId, key, excludeBound, options.onBehalfOf ?? null))
      return checked.get(key)
    }
    const ranked = await this.#rank(options.query.trim(), (key) => usable(key) !== undefined)
    const limit = options.limit ?? DEFAULT_LIMIT
    const results: DiscoveredSkill[] = []
    const subjects = { caller, agentId, onBehalfOf: options.onBehalfOf ?? null }
    for (const candidate of ranked) {
      if (results.length === limit) break
      const found = usable(candidate.key)
      if (found) results.push(this.#result(found, subjects, candidate))
    }
    const top = results[0]?.score ?? 1
    for (const result of results) result.score = Math.round((result.score / (top || 1)) * 1000) / 1000
    return cutToBudget(results, options.maxTokens)
  }

  /**
   * The skills a caller (by id: an API key, `agent:<id>`) called ok most in the last 7 days, at
   * most 10, most first: a large catalog lists them beside its core set. One indexed query.
   */
  async mostUsed(callerId: string): Promise<string[]> {
    const since = this.#now() - MOST_USED_DAYS * 24 * 60 * 60 * 1000
    // One more, as discover_skills itself may be among them.
    const rows = await this.#o.audit.mostCalled({ callerId, since, limit: MOST_USED + 1 })
    return rows
      .map((row) => row.skill)
      .filter((key) => key !== DISCOVER_KEY)
      .slice(0, MOST_USED)
  }

  /**
   * A discovery made in a conversation, and who made it: an ok call that follows in that
   * conversation teaches the called skill this request, if the asker may use that skill.
   */
  remember(conversationId: string | null, query: string, asker: Asker, returned: string[]): void {
    if (conversationId) this.#log.offer(conversationId, query, asker, returned, this.#now())
  }

  /**
   * An ok call: the called skill learns the latest request discovered in its conversation (returned
   * or not) and earlier ones that returned it, each only if the discovery's asker could have found
   * it; a sequence teaches a relation.
   */
  observe(call: { key: string; conversationId: string | null }): void {
    if (!call.conversationId || call.key === DISCOVER_KEY) return
    const { key } = call
    const teaches = (offer: Offer<Asker>) =>
      // The instruction tools follow every discovery of an instruction skill: they learn only when discovery returned them.
      (offer.returned.has(key) || !INSTRUCTION_TOOLS.has(key)) &&
      this.#usable(offer.asker.caller, agentOf(offer.asker.caller, offer.asker.agent), key, false) !== undefined
    const { queries, previous } = this.#log.called(call.conversationId, key, this.#now(), teaches)
    const at = new Date(this.#now()).toISOString()
    for (const query of queries) {
      const example = { id: exampleId(), skill: key, query, at: Date.parse(at) }
      this.#learn(example)
      this.#pendingExamples.push({ id: example.id, skill_key: key, query, created_at: at, manager_id: this.#o.managerId ?? null })
    }
    if (previous && previous !== key) {
      this.#relations.learn(previous, key)
      this.#pendingRelations.push({ from: previous, to: key })
    }
  }

  /** Store what was learned; runs every second and at close. A failed write is tried again next time. */
  flush(): Promise<void> {
    const examples = this.#pendingExamples.splice(0)
    const relations = this.#pendingRelations.splice(0)
    if (!examples.length && !relations.length) return this.#flushing
    const at = new Date(this.#now()).toISOString()
    this.#flushing = this.#flushing.then(async () => {
      // Dated when written, not when learned: a write retried after an outage must not land behind other managers' read cursors.
      const written = new Date(this.#now()).toISOString()
      try {
        await this.#o.repo.addExamples(examples.map((row) => ({ ...row, created_at: written })))
        // Written here, so known here: the next look starts a minute before them, not before the last request read.
        if (this.#loaded && examples.length) this.#seeExamples(written)
      } catch (error) {
        // Kept for the next try, up to a bound: a store down for long loses the oldest, never the process.
        const waiting = [...examples, ...this.#pendingExamples]
        this.#pendingExamples = waiting.slice(-MAX_PENDING)
        this.#o.logger.warn(
          { err: error, examples: examples.length, dropped: waiting.length - this.#pendingExamples.length },
          'discovery could not store what it learned; it tries again in a second',
        )
      }
      try {
        await this.#o.repo.addRelations(relations, at)
      } catch (error) {
        this.#pendingRelations = [...relations, ...this.#pendingRelations].slice(-MAX_PENDING)
        this.#o.logger.warn({ err: error, relations: relations.length }, 'discovery could not store learned relations; it tries again in a second')
      }
    })
    return this.#flushing
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
  }

  /** The newest request time known here (read, or written by this manager) moves forward only. */
  #seeExamples(at: string): void {
    if (!this.#examplesSeen || at > this.#examplesSeen) this.#examplesSeen = at
  }

  /** A request learned here or read from the store: the index learns it at once (its words join the skill's usage). */
  #learn(example: UsageExample): void {
    const { added, dropped } = this.#usage.add(example)
    if (added) {
      this.#index.learn(example.skill, example.query, example.at)
      this.#neighbours.add(example)
    }
    for (const old of dropped) this.#unlearn(old)
  }

  #unlearn(example: UsageExample): void {
    this.#index.unlearn(example.skill, example.query, example.at)
    this.#neighbours.remove(example)
  }

  #sync(): void {
    if (this.#dirty) {
      this.#rebuild()
      this.#dirty = false
    } else if (this.#dirtyKeys.size > 0) this.#reindex()
  }

  /** Every skill's document again (skills, the catalog or instruction skills changed); the index keeps what is unchanged. */
  #rebuild(): void {
    this.#dirtyKeys.clear()
    const documents = new Map<string, BaseDocument>()
    const related = new Map<string, Skill['related']>()
    for (const skill of this.#o.registry.list()) {
      if (skill.key === DISCOVER_KEY) continue
      documents.set(skill.key, this.#skillDocument(skill))
      related.set(skill.key, skill.related)
    }
    const library = this.#o.instructions()
    for (const skill of library.skills) {
      if (documents.has(skill.name)) continue
      documents.set(skill.name, this.#instructionDocument(library, skill))
    }
    // A skill new to the index (or back) learns the requests stored for it.
    for (const key of this.#index.sync(documents.values())) for (const e of this.#usage.examples(key)) this.#index.learn(key, e.query, e.at)
    this.#relations.setDeclared(related)
    this.#documents = documents
    this.#titles = titlesOf(documents)
    this.#semantic?.sync(documents.values())
  }

  /** The documents of the skills whose catalog rows changed, as a rebuild would make them: only those are read again. */
  #reindex(): void {
    const keys = [...this.#dirtyKeys].filter((key) => this.#documents.has(key))
    this.#dirtyKeys.clear()
    if (keys.length === 0) return
    const library = this.#o.instructions()
    let retitled = false
    for (const key of keys) {
      // Which skills exist moves only with a rebuild: a key here is a registered skill or, failing that, an instruction skill.
      const skill = this.#o.registry.get(key)
      const instruction = skill ? undefined : library.get(key)
      const base = skill ? this.#skillDocument(skill) : instruction && this.#instructionDocument(library, instruction)
      if (!base) continue
      retitled ||= this.#documents.get(key)!.title !== base.title
      this.#documents.set(key, base)
      this.#index.upsert(base)
    }
    if (retitled) this.#titles = titlesOf(this.#documents)
    this.#semantic?.sync(this.#documents.values())
  }

  #skillDocument(skill: Skill): BaseDocument {
    const row = this.#o.catalog.row(skill.key)
    return skillDocument(skill, {
      title: row?.title_override ?? skill.title,
      description: row?.description_override ?? skill.description,
      tags: row?.tags_override ? (JSON.parse(row.tags_override) as string[]) : skill.tags,
      systemPrompt: row?.system_prompt ?? null,
    })
  }

  #instructionDocument(library: InstructionLibrary, skill: LibrarySkill): BaseDocument {
    return {
      id: skill.name,
      key: skill.name,
      title: skill.name,
      description: library.description(skill, this.#o.catalog),
      prompt: this.#o.catalog.row(skill.name)?.system_prompt ?? '',
      tags: '',
      category: 'instructions',
      source: 'agent-skill',
      args: '',
    }
  }

  async #rank(query: string, mayUse: (key: string) => boolean): Promise<Candidate[]> {
    if (/^select:/i.test(query)) {
      return query
        .slice('select:'.length)
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '')
        .map((key) => ({ key, score: 1, why: ['selected by key'], pinned: true }))
    }
    const candidates = new Map<string, Candidate>()
    const { hits, terms } = this.#index.search(query, this.#ranking, this.#now(), LEXICAL_TOP)
    const topLexical = hits[0]?.score ?? 1
    for (const hit of hits) candidates.set(hit.key, { key: hit.key, score: hit.score / topLexical, why: [], terms })
    const { neighbours } = this.#ranking
    if (neighbours > 0) {
      for (const { skill, vote } of this.#neighbours.nearest(query, NEIGHBOURS, this.#now(), this.#ranking)) {
        const candidate = candidates.get(skill)
        if (candidate) candidate.score += neighbours * vote
        else candidates.set(skill, { key: skill, score: neighbours * vote, why: ['asked for like this before'], terms })
      }
    }
    let ranked = [...candidates.values()].sort((a, b) => b.score - a.score)
    if (this.#semantic) ranked = fuseRanks(ranked, await this.#semantic.rank(query))
    const exact = this.#exact(query)
    if (exact) {
      ranked = ranked.filter((c) => c.key !== exact)
      ranked.unshift({ key: exact, score: (ranked[0]?.score ?? 1) * 1.5 || 1, why: ['exact key'], pinned: true })
    }
    return this.#relations.expand(ranked, mayUse, this.ranking.relations)
  }

  /** The key a query names exactly: the key itself, its tool name or its title, in any case. */
  #exact(query: string): string | undefined {
    const wanted = query.toLowerCase().replace(/[\s-]+/g, '_')
    if (this.#documents.has(wanted)) return wanted
    return this.#titles.get(query.toLowerCase())
  }

  /**
   * Whether this caller, for this agent, may use the skill now, as every discovery decides it: how
   * it may call a skill (null when it may not), or the instruction skill it may activate.
   */
  #usable(caller: Caller, agentId: string | null, key: string, excludeBound: boolean, onBehalfOf: Caller | null = null): Usable | undefined {
    const skill = this.#o.registry.get(key)
    const catalog = this.#o.catalog
    if (!skill) {
      const instruction = this.#o.instructions().get(key)
      return instruction && this.#mayActivate(caller, agentId, instruction, excludeBound) ? { instruction } : undefined
    }
    if (skill.key === DISCOVER_KEY) return undefined
    if (excludeBound && agentId && catalog.isBound(agentId, skill.key)) return undefined
    // For a binding not made yet, ask as if it were: what would the agent be allowed once bound?
    const sources: AccessView = {
      skills: excludeBound ? bindingAssumed(catalog) : catalog,
      policies: this.#o.policies,
      ...(this.#o.edges && { sources: { edges: this.#o.edges } }),
    }
    const access = callAccess(
      sources,
      excludeBound && agentId ? { kind: 'agent', id: agentId, name: agentId, agentId } : caller,
      agentId,
      skill,
      undefined,
      onBehalfOf,
    )
    return access && availability(true, skill).available ? { skill, access } : undefined
  }

  #mayActivate(caller: Caller, agentId: string | null, skill: LibrarySkill, excludeBound: boolean): boolean {
    const catalog = this.#o.catalog
    if (!excludeBound) return mayActivate(caller, agentId, skill, catalog)
    if (!agentId || catalog.isBound(agentId, skill.name) || !catalog.isEnabled(skill.name)) return false
    // What the agent could use once bound: only what is shared with it.
    return isSharedWith(catalog.sharing(skill.name), { kind: 'agent', id: agentId, name: agentId, agentId }, agentId)
  }

  /** A usable skill as a result; its connection is the one its calls would meet (a run acting for a person: that person's values). */
  #result(found: Usable, subjects: { caller: Caller; agentId: string | null; onBehalfOf: Caller | null }, candidate: Candidate): DiscoveredSkill {
    if ('instruction' in found) {
      const skill = found.instruction
      return {
        key: skill.name,
        title: skill.name,
        description: trim(this.#o.instructions().description(skill, this.#o.catalog)),
        score: candidate.score,
        why: this.#reasons(candidate),
        kind: 'instruction',
        class: 'safe',
        needsApproval: false,
        arguments: 'none: activate it with activate_skill { name }',
        connection: READY_CONNECTION,
      }
    }
    const { skill, access } = found
    const { caller, agentId } = subjects
    const row = this.#o.catalog.row(skill.key)
    return {
      key: skill.key,
      title: row?.title_override ?? skill.title,
      description: trim(row?.description_override ?? skill.description),
      score: candidate.score,
      why: this.#reasons(candidate),
      kind: 'skill',
      class: skill.class,
      needsApproval: access.decision === 'ASK',
      arguments: argumentSummary(skill.inputSchemaFor({ caller, agent: agentId }), skill.scope === 'host' ? access.edges : undefined),
      ...(skill.scope === 'host' && { edges: access.edges }),
      connection: this.#o.connectionState?.(skill, subjects) ?? READY_CONNECTION,
    }
  }

  #reasons(candidate: Candidate): string[] {
    return candidate.terms
      ? [...matchedFields(this.#index.matches(candidate.key, candidate.terms, this.#ranking), this.#usage.count(candidate.key)), ...candidate.why]
      : candidate.why
  }
}

/** An agent key discovers for its own agent; a person for the agent it names, if any. */
function agentOf(caller: Caller, agent: string | null | undefined): string | null {
  return caller.kind === 'agent' ? caller.agentId : (agent ?? null)
}

/** Skill keys by lower-cased title; of two skills with one title, the later one's. */
function titlesOf(documents: Map<string, BaseDocument>): Map<string, string> {
  return new Map([...documents.values()].map((doc) => [doc.title.toLowerCase(), doc.id]))
}

function bindingAssumed(catalog: Catalog): BindingView {
  return { isEnabled: (key) => catalog.isEnabled(key), isBound: () => true, sharing: (key) => catalog.sharing(key) }
}

function trim(text: string): string {
  return text.length <= DESCRIPTION_CHARS ? text : `${text.slice(0, DESCRIPTION_CHARS - 1).trimEnd()}…`
}

function cutToBudget(results: DiscoveredSkill[], maxTokens: number | undefined): DiscoveryAnswer {
  if (maxTokens === undefined) return { results, omitted: 0 }
  let used = 0
  const kept: DiscoveredSkill[] = []
  for (const result of results) {
    used += Math.ceil(JSON.stringify(result).length / 4)
    if (used > maxTokens) break
    kept.push(result)
  }
  return { results: kept, omitted: results.length - kept.length }
}
