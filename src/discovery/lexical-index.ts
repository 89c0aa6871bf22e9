import SearchableMap from 'minisearch/SearchableMap'
import type { BaseDocument } from './skill-document.js'
import { TEXT_FIELDS, type TextField } from './skill-document.js'
import { processTerm, termCounts, tokenize } from './tokenize.js'
import type { RankingParameters } from './ranking.js'

/** Where a matched word was found: one of the skill's own fields, or the requests it learned. */
export type MatchField = TextField | 'usage'

const USAGE = TEXT_FIELDS.length
const FIELD_NAMES: readonly MatchField[] = [...TEXT_FIELDS, 'usage']

// An unfinished or mistyped word says less than a whole one: its matches count this much.
const EXPANDED_WEIGHT = 0.4
// A prefix like "re" reaches hundreds of words: the most frequent few are plenty.
const MAX_EXPANSIONS = 8
// From this many skills on, a word held by more than this share of them is left out of a query
// (unless nothing else is left): its IDF is near nothing and it costs the most to score.
const COMMON_FROM = 1_000
const COMMON_SHARE = 0.05
const TYPOS_KEPT = 10_000
// Learned weights are kept relative to an epoch (2^(age/half-life) grows with time); past this many half-lives it moves.
const EPOCH_SPAN = 64

export interface LexicalHit {
  key: string
  score: number
}

export interface LexicalSearch {
  hits: LexicalHit[]
  /** The index words the query was matched with (its own and their expansions), for `matches`. */
  terms: string[]
}

interface Entry {
  n: number
  doc: BaseDocument
}

/**
 * The words behind discovery: a field-weighted Okapi BM25 (BM25F) over each skill's own text and
 * the requests that led to its calls. A learned request adds its words to the skill's usage field
 * in place, so learning costs a few map updates, not a re-index; usage weighs by age with a
 * half-life, kept exact by storing weights relative to an epoch.
 */
export class LexicalIndex {
  readonly #entries = new Map<string, Entry>()
  readonly #keys: string[] = []
  readonly #free: number[] = []
  /** Term → skill number → (weighted) count, per field; the last is usage. */
  readonly #postings: Array<Map<string, Map<number, number>>> = FIELD_NAMES.map(() => new Map())
  /** Per field: each skill's length in words (usage: weighted), their sum, and how many skills have the field at all. */
  readonly #lengths: number[][] = FIELD_NAMES.map(() => [])
  readonly #totals: number[] = FIELD_NAMES.map(() => 0)
  readonly #holders: number[] = FIELD_NAMES.map(() => 0)
  /** How many skills hold each word, in any field. */
  readonly #df = new Map<string, number>()
  /** Every indexed word, for prefix and fuzzy lookups. */
  readonly #terms = new SearchableMap<true>()
  /** Fuzzy lookups walk the whole word tree: each word's is kept until a word comes or goes. */
  readonly #typoCache = new Map<string, string[]>()
  readonly #halfLifeMs: number
  #epoch: number
  #scores = new Float64Array(0)
  #accumulated = new Float64Array(0)

  constructor(halfLifeMs: number, now: number) {
    this.#halfLifeMs = halfLifeMs
    this.#epoch = now
  }

  get size(): number {
    return this.#entries.size
  }

  /** Add or replace a skill's own text (its learned requests stay); unchanged, it is left alone. */
  upsert(doc: BaseDocument): void {
    const entry = this.#entries.get(doc.id)
    if (entry && TEXT_FIELDS.every((field) => entry.doc[field] === doc[field])) return
    if (entry) {
      this.#unindexText(entry)
      entry.doc = doc
      this.#indexText(entry)
      return
    }
    const n = this.#free.pop() ?? this.#keys.length
    this.#keys[n] = doc.id
    // A reused number's lengths are all 0 already (removal cleared them).
    for (const lengths of this.#lengths) lengths[n] ??= 0
    const added = { n, doc }
    this.#entries.set(doc.id, added)
    this.#indexText(added)
  }

  /** Drop a skill, its learned requests included. */
  remove(key: string): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    this.#unindexText(entry)
    for (const [term, postings] of this.#postings[USAGE]!) if (postings.has(entry.n)) this.#unpost(USAGE, term, entry.n)
    this.#setLength(USAGE, entry.n, 0)
    this.#entries.delete(key)
    this.#free.push(entry.n)
  }

  /** Make the index hold exactly these skills; returns the keys that were not indexed before. */
  sync(documents: Iterable<BaseDocument>): string[] {
    const seen = new Set<string>()
    const added: string[] = []
    for (const doc of documents) {
      seen.add(doc.id)
      if (!this.#entries.has(doc.id)) added.push(doc.id)
      this.upsert(doc)
    }
    for (const key of [...this.#entries.keys()]) if (!seen.has(key)) this.remove(key)
    return added
  }

  /** A request that led to a call of this skill (made at `at`, ms): its words join the skill's usage. */
  learn(key: string, query: string, at: number): void {
    this.#learn(key, query, at, 1)
  }

  /** Forget a learned request (aged out, or past the per-skill cap). */
  unlearn(key: string, query: string, at: number): void {
    this.#learn(key, query, at, -1)
  }

  /** The best `top` skills for a query, by BM25F over the fields weighted as `ranking` says. */
  search(query: string, ranking: RankingParameters, now: number, top: number): LexicalSearch {
    const words = [...new Set(tokenize(query).map(processTerm))].filter((t): t is string => t !== null)
    const counted = FIELD_NAMES.map((field, f) => (f === USAGE ? ranking.usage : ranking.fields[field as TextField]) > 0)
    const common = (term: string) => this.#entries.size >= COMMON_FROM && this.#heldBy(term, counted) > this.#entries.size * COMMON_SHARE
    const kept = words.some((term) => !common(term)) ? words.filter((term) => !common(term)) : words
    const weighted = new Map<string, number>()
    kept.forEach((term, i) => {
      weighted.set(term, 1)
      const expansions: string[] = []
      if (ranking.prefix && i === kept.length - 1 && term.length >= 4) for (const [found] of this.#terms.atPrefix(term)) expansions.push(found)
      // A typo is a word the skills don't hold: a word they hold is taken as meant (plan is not plane).
      if (ranking.fuzzyFrom > 0 && term.length >= ranking.fuzzyFrom && !this.#terms.has(term)) expansions.push(...this.#typos(term))
      const ranked = expansions.filter((t) => t !== term && !common(t)).sort((a, b) => (this.#df.get(b) ?? 0) - (this.#df.get(a) ?? 0))
      for (const found of ranked.slice(0, MAX_EXPANSIONS)) if (!weighted.has(found)) weighted.set(found, EXPANDED_WEIGHT)
    })
    const hits = this.#score(weighted, ranking, now, top)
    return { hits, terms: [...weighted.keys()] }
  }

  /** Which of these words a skill holds, and in which of the fields ranking counts: term → fields (for `why`). */
  matches(key: string, terms: readonly string[], ranking: RankingParameters): Record<string, MatchField[]> {
    const entry = this.#entries.get(key)
    const found: Record<string, MatchField[]> = {}
    if (!entry) return found
    const counted = FIELD_NAMES.map((field, f) => (f === USAGE ? ranking.usage : ranking.fields[field as TextField]) > 0)
    for (const term of terms) {
      const fields = FIELD_NAMES.filter((_, f) => counted[f] && this.#postings[f]!.get(term)?.has(entry.n))
      if (fields.length) found[term] = fields
    }
    return found
  }

  /** The indexed words one edit away. */
  #typos(term: string): string[] {
    let found = this.#typoCache.get(term)
    if (!found) {
      // Query words are unbounded: the memo starts over rather than grow without end.
      if (this.#typoCache.size >= TYPOS_KEPT) this.#typoCache.clear()
      this.#typoCache.set(term, (found = [...this.#terms.fuzzyGet(term, 1).keys()]))
    }
    return found
  }

  #score(terms: Map<string, number>, ranking: RankingParameters, now: number, top: number): LexicalHit[] {
    const capacity = this.#keys.length
    if (this.#scores.length < capacity) {
      this.#scores = new Float64Array(capacity * 2)
      this.#accumulated = new Float64Array(capacity * 2)
    }
    const scores = this.#scores
    const accumulated = this.#accumulated
    const count = this.#entries.size
    const { k1, b } = ranking
    // Learned weights are stored relative to the epoch; this brings them to now.
    const decay = 2 ** ((this.#epoch - now) / this.#halfLifeMs)
    const weights = FIELD_NAMES.map((field, f) => (f === USAGE ? ranking.usage * decay : ranking.fields[field as TextField]))
    // A field's average length is over the skills that have it: a skill's only learned request is not "long" for being the only one.
    const averages = this.#totals.map((total, f) => total / Math.max(1, this.#holders[f]!))
    const touched: number[] = []
    const termTouched: number[] = []
    for (const [term, queryWeight] of terms) {
      if (!this.#df.has(term)) continue
      for (let f = 0; f < FIELD_NAMES.length; f++) {
        const weight = weights[f]!
        const postings = weight > 0 ? this.#postings[f]!.get(term) : undefined
        if (!postings) continue
        const lengths = this.#lengths[f]!
        const average = averages[f]! || 1
        // forEach, not for…of: no iterator entry per posting, which the GC would collect by the million.
        postings.forEach((tf, n) => {
          if (accumulated[n] === 0) termTouched.push(n)
          accumulated[n]! += (weight * tf) / (1 - b + (b * lengths[n]!) / average)
        })
      }
      // The skills holding the word in a field ranking counts: every code skill's source says "code", which must not make "code" worthless.
      const df = termTouched.length
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5))
      for (const n of termTouched) {
        const tf = accumulated[n]!
        accumulated[n] = 0
        if (!(tf > 0)) continue
        // Every term adds more than 0 (idf > 0), so a score of 0 means not touched yet.
        if (scores[n] === 0) touched.push(n)
        scores[n]! += (queryWeight * idf * tf * (k1 + 1)) / (tf + k1)
      }
      termTouched.length = 0
    }
    const best = topScores(touched, scores, top)
    const hits = best.map((n) => ({ key: this.#keys[n]!, score: scores[n]! }))
    for (const n of touched) scores[n] = 0
    return hits
  }

  #learn(key: string, query: string, at: number, sign: 1 | -1): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    if (sign > 0 && (at - this.#epoch) / this.#halfLifeMs > EPOCH_SPAN) this.#moveEpoch(at)
    const weight = 2 ** ((at - this.#epoch) / this.#halfLifeMs)
    const counts = termCounts(query)
    let length = 0
    for (const [term, tf] of counts) {
      length += tf
      const postings = this.#postings[USAGE]!.get(term)
      const before = postings?.get(entry.n) ?? 0
      const after = before + sign * weight * tf
      // Subtracting what was added leaves rounding dust: under a millionth of the weight is nothing.
      if (after <= weight * 1e-6) {
        if (before > 0) this.#unpost(USAGE, term, entry.n)
      } else if (before > 0) postings!.set(entry.n, after)
      else this.#post(USAGE, term, entry.n, after)
    }
    const next = this.#lengths[USAGE]![entry.n]! + sign * weight * length
    this.#setLength(USAGE, entry.n, next <= weight * 1e-6 ? 0 : next)
  }

  /** Rescale every learned weight to a later epoch, so that the weights stay finite. */
  #moveEpoch(now: number): void {
    const factor = 2 ** ((this.#epoch - now) / this.#halfLifeMs)
    this.#epoch = now
    for (const postings of this.#postings[USAGE]!.values()) for (const [n, weight] of postings) postings.set(n, weight * factor)
    const lengths = this.#lengths[USAGE]!
    for (let n = 0; n < lengths.length; n++) lengths[n] = (lengths[n] ?? 0) * factor
    this.#totals[USAGE]! *= factor
  }

  #indexText(entry: Entry): void {
    TEXT_FIELDS.forEach((field, f) => {
      let length = 0
      for (const [term, tf] of termCounts(entry.doc[field])) {
        length += tf
        this.#post(f, term, entry.n, tf)
      }
      this.#setLength(f, entry.n, length)
    })
  }

  #unindexText(entry: Entry): void {
    TEXT_FIELDS.forEach((field, f) => {
      for (const term of termCounts(entry.doc[field]).keys()) this.#unpost(f, term, entry.n)
      this.#setLength(f, entry.n, 0)
    })
  }

  /** Set a skill's length in one field, keeping the field's total and holder count. */
  #setLength(field: number, n: number, length: number): void {
    const before = this.#lengths[field]![n] ?? 0
    this.#totals[field]! += length - before
    this.#holders[field]! += Number(length > 0) - Number(before > 0)
    this.#lengths[field]![n] = length
  }

  #post(field: number, term: string, n: number, tf: number): void {
    if (!this.#holds(term, n)) {
      const df = this.#df.get(term) ?? 0
      this.#df.set(term, df + 1)
      if (df === 0) {
        this.#terms.set(term, true)
        this.#typoCache.clear()
      }
    }
    let postings = this.#postings[field]!.get(term)
    if (!postings) this.#postings[field]!.set(term, (postings = new Map()))
    postings.set(n, tf)
  }

  #unpost(field: number, term: string, n: number): void {
    const postings = this.#postings[field]!.get(term)
    if (!postings?.delete(n)) return
    if (postings.size === 0) this.#postings[field]!.delete(term)
    if (this.#holds(term, n)) return
    const df = (this.#df.get(term) ?? 1) - 1
    if (df > 0) this.#df.set(term, df)
    else {
      this.#df.delete(term)
      this.#terms.delete(term)
      this.#typoCache.clear()
    }
  }

  /** How many skills hold a word in the fields counted (a field weighted 0 makes no word common). */
  #heldBy(term: string, counted: readonly boolean[]): number {
    const all = this.#df.get(term) ?? 0
    if (all === 0 || this.#postings.every((field, f) => counted[f] || !field.has(term))) return all
    const holders = new Set<number>()
    this.#postings.forEach((field, f) => {
      if (counted[f]) for (const n of field.get(term)?.keys() ?? []) holders.add(n)
    })
    return holders.size
  }

  #holds(term: string, n: number): boolean {
    for (const field of this.#postings) if (field.get(term)?.has(n)) return true
    return false
  }
}

/** The `top` best of the touched skills, best first; equal scores by skill number (stable while the catalog stands). */
function topScores(touched: number[], scores: Float64Array, top: number): number[] {
  const better = (x: number, y: number) => scores[y]! - scores[x]! || x - y
  if (touched.length <= top * 2) return touched.sort(better).slice(0, top)
  // A bounded pass: keep the best `top` seen so far, sorted, and only insert what beats the worst.
  const best = touched.slice(0, top).sort(better)
  for (let i = top; i < touched.length; i++) {
    const n = touched[i]!
    if (better(n, best[top - 1]!) >= 0) continue
    let lo = 0
    let hi = top - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (better(n, best[mid]!) < 0) hi = mid
      else lo = mid + 1
    }
    best.splice(lo, 0, n)
    best.pop()
  }
  return best
}
