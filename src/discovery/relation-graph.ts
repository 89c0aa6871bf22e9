import type { Skill } from '../skill/index.js'
import type { RelationRow } from '../store/index.js'

/** A learned relation needs this many sequences: one could be chance. */
const LEARNED_MIN_COUNT = 2
/**
 * And B must follow A at least twice as often as it follows the other skills: a busy skill called
 * after everything follows each about as often (lift near 1).
 */
const LEARNED_MIN_LIFT = 2
const SEEDS = 10

interface Edge {
  to: string
  kind: string
  /** 0–1: 1 for a declared relation; a learned one's 1 − 1/lift. */
  strength: number
}

interface Ranked {
  key: string
  score: number
  why: string[]
  pinned?: boolean
}

/**
 * Relations between skills: declared on definitions (`related`) and learned from the stored counts
 * of one skill called right after another in a conversation, kept only where the pair beats its
 * base rates (lift). A relation raises a skill that matched the request itself, never above the
 * skill it is related to; a skill only a relation brings comes after every direct match.
 */
export class RelationGraph {
  #declared = new Map<string, Edge[]>()
  /** n(a→b), by a then b, and the margins lift is measured against. */
  readonly #counts = new Map<string, Map<string, number>>()
  readonly #out = new Map<string, number>()
  readonly #in = new Map<string, number>()
  #total = 0

  setDeclared(related: Map<string, Skill['related']>): void {
    const edges = new Map<string, Edge[]>()
    for (const [from, kinds] of related) {
      for (const [kind, keys] of Object.entries(kinds)) {
        for (const to of keys) if (to !== from) edges.set(from, [...(edges.get(from) ?? []), { to, kind, strength: 1 }])
      }
    }
    this.#declared = edges
  }

  /** The stored counts of these pairs (every pair, or those counted since the last read); the rest are kept. */
  setLearned(rows: RelationRow[]): void {
    for (const row of rows) this.#count(row.from_key, row.to_key, row.weight)
  }

  learn(from: string, to: string): void {
    this.#count(from, to, (this.#counts.get(from)?.get(to) ?? 0) + 1)
  }

  /**
   * The ranking with relations applied, `weight` (0 turns them off) scaling how much they count.
   * Each of the best skills the caller may use (a hidden skill must not surface through its
   * relations) raises a related skill that matched too by weight × its score × the relation's
   * strength, never above itself; a related skill nothing matched comes after every match.
   */
  expand<T extends Ranked>(ranked: T[], mayUse: (key: string) => boolean, weight: number): T[] {
    if (weight <= 0 || ranked.length === 0) return ranked
    const byKey = new Map(ranked.map((r) => [r.key, r]))
    const raised = new Map<string, { score: number; why: string }>()
    const added = new Map<string, Ranked>()
    // Access is checked lazily, best first, until enough seeds: a check costs, and most of the ranking never seeds.
    const seeds: T[] = []
    for (const r of ranked) {
      if (seeds.length === SEEDS) break
      if (mayUse(r.key)) seeds.push(r)
    }
    for (const seed of seeds) {
      for (const edge of this.#edgesFrom(seed.key)) {
        const why = `related to ${seed.key} (${edge.kind})`
        const target = byKey.get(edge.to)
        if (!target) {
          if (!added.has(edge.to)) added.set(edge.to, { key: edge.to, score: seed.score * weight * edge.strength, why: [why] })
          continue
        }
        // Scores are the direct matches' own: a raised skill raises nothing in turn.
        const score = Math.min(target.score + weight * seed.score * edge.strength, seed.score)
        if (target.pinned || score <= Math.max(target.score, raised.get(edge.to)?.score ?? 0)) continue
        raised.set(edge.to, { score, why })
      }
    }
    if (raised.size === 0 && added.size === 0) return ranked
    for (const [key, { score, why }] of raised) {
      const target = byKey.get(key)!
      target.score = score
      target.why.push(why)
    }
    const direct = raised.size ? [...ranked].sort((a, b) => Number(b.pinned ?? false) - Number(a.pinned ?? false) || b.score - a.score) : ranked
    // Below every match in score as in order: a result's score is relative to the best one's.
    let floor = direct.at(-1)!.score
    for (const entry of added.values()) entry.score = floor = Math.min(entry.score, floor)
    return [...direct, ...(added.values() as Iterable<T>)]
  }

  #edgesFrom(key: string): Edge[] {
    const edges = [...(this.#declared.get(key) ?? [])]
    const counts = this.#counts.get(key)
    if (!counts) return edges
    const out = this.#out.get(key)!
    const learned: Edge[] = []
    for (const [to, n] of counts) {
      if (n < LEARNED_MIN_COUNT) continue
      // How often `to` follows this skill against how often it follows any other: a deployment's one
      // main workflow is learned (it follows nothing else), a skill that follows everything is not.
      const elsewhere = this.#total - out
      const otherwise = elsewhere > 0 ? (this.#in.get(to)! - n) / elsewhere : 0
      const lift = otherwise > 0 ? n / out / otherwise : Infinity
      if (lift >= LEARNED_MIN_LIFT) learned.push({ to, kind: `called next ${n} times`, strength: 1 - 1 / lift })
    }
    return [...edges, ...learned.sort((a, b) => b.strength - a.strength)]
  }

  #count(from: string, to: string, n: number): void {
    let counts = this.#counts.get(from)
    if (!counts) this.#counts.set(from, (counts = new Map()))
    const delta = n - (counts.get(to) ?? 0)
    counts.set(to, n)
    this.#out.set(from, (this.#out.get(from) ?? 0) + delta)
    this.#in.set(to, (this.#in.get(to) ?? 0) + delta)
    this.#total += delta
  }
}
