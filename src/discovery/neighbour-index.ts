import { termCounts } from './tokenize.js'
import type { UsageExample } from './usage-log.js'

// From this many stored requests on, a word more than this share of them hold is left out (unless nothing else is left).
const COMMON_FROM = 1_000
const COMMON_SHARE = 0.05
const MAX_WORDS = 64
// Postings scored per request at most: past them, only more common words are left, which move the nearest little and cost the most.
const MAX_POSTINGS = 20_000

export interface NeighbourVote {
  skill: string
  /** 0–1: the best voted skill has 1 when its requests are new; older requests vote less (they halve every half-life). */
  vote: number
}

/**
 * Every learned request as its own small entry: a new request finds the stored ones most like it
 * (Okapi BM25 over requests), and each votes for the skill it led to, by rank and age. A skill's
 * usage field already holds its requests' words in bulk; this says which single past request a
 * new one resembles, which a skill with hundreds of requests can't fake by holding every word.
 */
export class NeighbourIndex {
  readonly #numbers = new Map<string, number>()
  readonly #examples: Array<UsageExample | undefined> = []
  readonly #lengths: number[] = []
  readonly #free: number[] = []
  /** Term → request number → count. */
  readonly #postings = new Map<string, Map<number, number>>()
  #total = 0
  #scores = new Float64Array(0)

  constructor(private readonly halfLifeMs: number) {}

  /** Store a request; one already stored (the same id) is left alone. */
  add(example: UsageExample): void {
    if (this.#numbers.has(example.id)) return
    const n = this.#free.pop() ?? this.#examples.length
    this.#numbers.set(example.id, n)
    this.#examples[n] = example
    let length = 0
    for (const [term, tf] of termCounts(example.query)) {
      length += tf
      let postings = this.#postings.get(term)
      if (!postings) this.#postings.set(term, (postings = new Map()))
      postings.set(n, tf)
    }
    this.#lengths[n] = length
    this.#total += length
  }

  remove(example: UsageExample): void {
    const n = this.#numbers.get(example.id)
    if (n === undefined) return
    for (const term of termCounts(example.query).keys()) {
      const postings = this.#postings.get(term)
      postings?.delete(n)
      if (postings?.size === 0) this.#postings.delete(term)
    }
    this.#total -= this.#lengths[n]!
    this.#lengths[n] = 0
    this.#examples[n] = undefined
    this.#numbers.delete(example.id)
    this.#free.push(n)
  }

  /** The skills the `k` stored requests most like this one led to, each voting 1/rank, weighed by its age. */
  nearest(query: string, k: number, now: number, bm25: { k1: number; b: number }): NeighbourVote[] {
    const count = this.#numbers.size
    if (count === 0) return []
    const asked = termCounts(query)
    // A word no past request holds is kept too: it scores none of them, but it is part of what a near one would match.
    const df = (term: string) => this.#postings.get(term)?.size ?? 0
    const words = [...asked.keys()]
    const common = (term: string) => count >= COMMON_FROM && df(term) > count * COMMON_SHARE
    const rarest = (words.some((t) => !common(t)) ? words.filter((t) => !common(t)) : words).sort((x, y) => df(x) - df(y))
    // A long request's rarest words say which past ones are like it; past these, more only cost time.
    const kept = rarest.slice(0, MAX_WORDS)
    if (this.#scores.length < this.#examples.length) this.#scores = new Float64Array(this.#examples.length * 2)
    const scores = this.#scores
    const touched: number[] = []
    const average = this.#total / count || 1
    const { k1, b } = bm25
    const lengths = this.#lengths
    // What the request would score against itself, were it stored: the most a past request can score.
    let self = 0
    const askedLength = [...asked.values()].reduce((sum, tf) => sum + tf, 0)
    let scanned = 0
    for (const term of kept) {
      const postings = this.#postings.get(term)
      if (scanned > MAX_POSTINGS) break
      scanned += postings?.size ?? 0
      const idf = Math.log(1 + (count - (postings?.size ?? 0) + 0.5) / ((postings?.size ?? 0) + 0.5))
      const tf = asked.get(term)!
      self += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * askedLength) / average))
      postings?.forEach((tf, n) => {
        if (scores[n] === 0) touched.push(n)
        scores[n]! += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[n]!) / average))
      })
    }
    // Only the best few matter: a bounded selection, then each votes by rank, older ones less.
    const best: number[] = []
    for (const n of touched) {
      if (best.length < k || scores[n]! > scores[best[best.length - 1]!]!) {
        let i = Math.min(best.length, k - 1)
        best[i] = n
        while (i > 0 && scores[best[i - 1]!]! < scores[n]!) {
          best[i] = best[i - 1]!
          best[--i] = n
        }
      }
    }
    const votes = new Map<string, { aged: number; fresh: number }>()
    best.forEach((n, rank) => {
      const example = this.#examples[n]!
      const age = 2 ** (-Math.max(0, now - example.at) / this.halfLifeMs)
      const vote = votes.get(example.skill) ?? { aged: 0, fresh: 0 }
      vote.aged += age / (rank + 1)
      vote.fresh += 1 / (rank + 1)
      votes.set(example.skill, vote)
    })
    // Past requests that share only everyday words with this one are its nearest, but not near: votes count as near as the nearest is.
    const nearness = best.length && self > 0 ? Math.min(1, scores[best[0]!]! / self) : 0
    for (const n of touched) scores[n] = 0
    if (votes.size === 0) return []
    // Scaled by the best vote as if its requests were new: old neighbours fade by the half-life as learned words do, even alone.
    const top = Math.max(...[...votes.values()].map((v) => v.fresh))
    return [...votes].map(([skill, { aged }]) => ({ skill, vote: (aged / top) * nearness }))
  }
}
