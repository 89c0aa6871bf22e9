import type { Skill } from '../skill/index.js'
import type { RelationRow } from '../store/index.js'

/** Learned relations count once this many sequences were seen: one could be chance. */
const LEARNED_MIN_WEIGHT = 2
const MAX_DEPTH = 3
const SEEDS = 10

interface Edge {
  to: string
  kind: string
}

interface Ranked {
  key: string
  score: number
  why: string[]
  pinned?: boolean
}

/**
 * Relations between skills: declared on definitions (`related`) and learned (one skill called
 * after another in a conversation). A found skill brings its relations along, to depth 3, each
 * step scoring the parent's score × (1 − 0.15·depth).
 */
export class RelationGraph {
  #declared = new Map<string, Edge[]>()
  #learned = new Map<string, Edge[]>()
  readonly #counts = new Map<string, number>()

  setDeclared(related: Map<string, Skill['related']>): void {
    const edges = new Map<string, Edge[]>()
    for (const [from, kinds] of related) {
      for (const [kind, keys] of Object.entries(kinds)) {
        for (const to of keys) if (to !== from) edges.set(from, [...(edges.get(from) ?? []), { to, kind }])
      }
    }
    this.#declared = edges
  }

  /** The stored counts of these pairs (every pair, or those counted since the last read); the rest are kept. */
  setLearned(rows: RelationRow[]): void {
    if (rows.length === 0) return
    for (const row of rows) this.#counts.set(`${row.from_key}\u0000${row.to_key}`, row.weight)
    this.#rebuildLearned()
  }

  learn(from: string, to: string): void {
    const pair = `${from}\u0000${to}`
    this.#counts.set(pair, (this.#counts.get(pair) ?? 0) + 1)
    if (this.#counts.get(pair) === LEARNED_MIN_WEIGHT) this.#rebuildLearned()
  }

  /**
   * The ranking with each top result's relations added (or raised) at their expanded score. Only
   * skills the caller may use seed an expansion: a hidden skill must not surface through its relations.
   */
  expand<T extends Ranked>(ranked: T[], mayUse: (key: string) => boolean): T[] {
    if (this.#declared.size === 0 && this.#learned.size === 0) return ranked
    const byKey = new Map(ranked.map((r) => [r.key, r]))
    const added: Ranked[] = []
    for (const seed of ranked.filter((r) => mayUse(r.key)).slice(0, SEEDS)) {
      let frontier = [seed.key]
      const seen = new Set(frontier)
      for (let depth = 1; depth <= MAX_DEPTH && frontier.length; depth++) {
        const next: string[] = []
        const score = seed.score * (1 - 0.15 * depth)
        for (const key of frontier) {
          for (const edge of [...(this.#declared.get(key) ?? []), ...(this.#learned.get(key) ?? [])]) {
            if (seen.has(edge.to)) continue
            seen.add(edge.to)
            next.push(edge.to)
            const why = `related to ${seed.key} (${edge.kind}${depth > 1 ? `, ${depth} steps` : ''})`
            const existing = byKey.get(edge.to)
            if (!existing) {
              const entry = { key: edge.to, score, why: [why] }
              byKey.set(edge.to, entry as T)
              added.push(entry)
            } else if (!existing.pinned && existing.score < score) {
              existing.score = score
              existing.why.push(why)
            }
          }
        }
        frontier = next
      }
    }
    return [...ranked, ...(added as T[])].sort((a, b) => Number(b.pinned ?? false) - Number(a.pinned ?? false) || b.score - a.score)
  }

  #rebuildLearned(): void {
    const edges = new Map<string, Edge[]>()
    for (const [pair, weight] of this.#counts) {
      if (weight < LEARNED_MIN_WEIGHT) continue
      const [from, to] = pair.split('\u0000') as [string, string]
      edges.set(from, [...(edges.get(from) ?? []), { to, kind: `called next ${weight} times` }])
    }
    this.#learned = edges
  }
}
