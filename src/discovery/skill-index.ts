import MiniSearch, { type Options } from 'minisearch'
import { DOCUMENT_FIELDS, type SkillDocument } from './skill-document.js'
import { processTerm, tokenize } from './tokenize.js'
import { USAGE_FIELDS } from './usage-log.js'

/** How much a skill's stored requests count against its own description (the newest bucket). */
export const USAGE_BOOST = 3

/**
 * Field weights: a word in the key or title says more about a skill than one in an argument; the
 * stored requests weigh by age, halving per bucket.
 */
const FIELD_BOOST: Record<(typeof DOCUMENT_FIELDS)[number], number> = {
  key: 2,
  title: 1.5,
  description: 1,
  prompt: 0.3,
  tags: 1.5,
  category: 0.7,
  source: 0.5,
  args: 0.6,
  usage0: USAGE_BOOST,
  usage1: USAGE_BOOST / 2,
  usage2: USAGE_BOOST / 4,
  usage3: USAGE_BOOST / 8,
}

export interface LexicalHit {
  key: string
  score: number
  /** Matched term → the fields it matched in (MiniSearch's own record; read only for results shown). */
  match: Record<string, string[]>
}

// Okapi BM25's usual k1 and b, without BM25+'s per-field bonus for any match: measured on MetaTool
// with usage history (bench/discovery-quality.bench.ts), it ranked better than MiniSearch's defaults.
const OKAPI = { k: 1.5, b: 0.75, d: 0 }
// From this many skills on, a word held by more than this share of them is left out of a query
// (unless nothing else is left): over 10,000 skills it took the p99 from about 12 ms to under 5.
const COMMON_FROM = 1_000
const COMMON_SHARE = 0.05

// Fuzzy lookups walk the whole word tree; queries share most of their words, so each is walked once while the index stands.
const FUZZY_KEPT = 20_000

/** MiniSearch whose fuzzy lookups are remembered until the index changes. */
class FuzzyMemoSearch extends MiniSearch<SkillDocument> {
  readonly #fuzzy = new Map<string, ReturnType<MiniSearch['_index']['fuzzyGet']>>()

  constructor(options: Options<SkillDocument>) {
    super(options)
    const index = this._index
    const fuzzyGet = index.fuzzyGet.bind(index)
    index.fuzzyGet = (term, distance) => {
      const key = `${distance}\u0000${term}`
      let found = this.#fuzzy.get(key)
      if (!found) {
        if (this.#fuzzy.size >= FUZZY_KEPT) this.#fuzzy.clear()
        this.#fuzzy.set(key, (found = fuzzyGet(term, distance)))
      }
      // A copy, in the same order: the search deletes the words it also found by prefix from what it gets.
      return new Map(found)
    }
  }

  /** The index changed: a word may now be within reach of a lookup. */
  forgetFuzzy(): void {
    this.#fuzzy.clear()
  }
}

/**
 * The search structure behind discovery: one MiniSearch index of skill documents (their own text
 * and every request that led to their calls, as fields of their own), updated in place as skills
 * and evidence come and go.
 */
export class SkillIndex {
  // Documents are removed with remove(), which needs the document as indexed and is synchronous:
  // discard() would leave vacuuming to run in the background, where it breaks on the adds that follow.
  readonly #skills = new FuzzyMemoSearch({
    fields: [...DOCUMENT_FIELDS],
    tokenize,
    // Adding and removing pass each word through here: that keeps each word's document frequency.
    processTerm: (term, field) => {
      const processed = processTerm(term)
      if (processed !== null && field !== undefined && !this.#inDoc.has(processed)) {
        this.#inDoc.add(processed)
        const df = (this.#df.get(processed) ?? 0) + this.#step
        if (df > 0) this.#df.set(processed, df)
        else this.#df.delete(processed)
      }
      return processed
    },
    autoVacuum: false,
  })
  readonly #docs = new Map<string, SkillDocument>()
  /** How many documents hold each indexed word. */
  readonly #df = new Map<string, number>()
  /** The words of the document being added or removed, each counted once. */
  readonly #inDoc = new Set<string>()
  #step = 1

  /** Make the index hold exactly these documents, touching only the ones that changed. */
  sync(documents: Iterable<SkillDocument>): void {
    const seen = new Set<string>()
    for (const doc of documents) {
      seen.add(doc.id)
      this.upsert(doc)
    }
    for (const [id, doc] of this.#docs) {
      if (seen.has(id)) continue
      this.#remove(doc)
      this.#docs.delete(id)
    }
  }

  /** Add or replace one document; unchanged, it is left alone. */
  upsert(doc: SkillDocument): void {
    const before = this.#docs.get(doc.id)
    if (before && DOCUMENT_FIELDS.every((field) => before[field] === doc[field])) return
    if (before) this.#remove(before)
    this.#inDoc.clear()
    this.#skills.forgetFuzzy()
    this.#skills.add(doc)
    this.#docs.set(doc.id, doc)
  }

  #remove(doc: SkillDocument): void {
    this.#inDoc.clear()
    this.#skills.forgetFuzzy()
    this.#step = -1
    try {
      this.#skills.remove(doc)
    } finally {
      this.#step = 1
    }
  }

  get size(): number {
    return this.#docs.size
  }

  /** The best `top` skills; MiniSearch ranks every match, only these are kept. */
  lexical(query: string, top: number): LexicalHit[] {
    // In a large catalog, a word most skills hold says little (its IDF is near nothing) and costs the
    // most to score: it is left out, unless the query has nothing else.
    const common = (term: string) => this.#docs.size >= COMMON_FROM && (this.#df.get(term) ?? 0) > this.#docs.size * COMMON_SHARE
    const terms = tokenize(query).map(processTerm)
    const keep = terms.some((t) => t !== null && !common(t))
    const searchTerm = (term: string) => {
      const processed = processTerm(term)
      return processed !== null && keep && common(processed) ? null : processed
    }
    const results = this.#skills.search(query, {
      boost: FIELD_BOOST,
      combineWith: 'OR',
      prefix: prefixLastWord,
      fuzzy: fuzzyLongWords,
      bm25: OKAPI,
      processTerm: searchTerm,
    })
    return results.slice(0, top).map((r) => ({ key: r.id as string, score: r.score, match: r.match }))
  }
}

// The last word may be unfinished ("restar" → restart), as in a search box; longer words forgive one typo.
const prefixLastWord = (term: string, i: number, terms: string[]) => i === terms.length - 1 && term.length >= 4
const fuzzyLongWords = (term: string) => (term.length >= 6 ? 1 : 0)

const USAGE = new Set<string>(USAGE_FIELDS)

/** Which words matched in which of the skill's own fields, and how many in its stored requests, for `why`. */
export function matchedFields(match: Record<string, string[]>, stored: number): string[] {
  const fields = new Map<string, string[]>()
  const usage = new Set<string>()
  for (const [term, matched] of Object.entries(match)) {
    for (const field of matched) {
      if (USAGE.has(field)) usage.add(term)
      else fields.set(field, [...(fields.get(field) ?? []), term])
    }
  }
  const why: string[] = []
  if (fields.size) why.push(`matched ${[...fields].map(([field, terms]) => `${field}: ${terms.join(', ')}`).join('; ')}`)
  if (usage.size) why.push(`asked for like this before (${[...usage].join(', ')}; ${stored} stored request${stored === 1 ? '' : 's'})`)
  return why
}
