/** A usage example: a request that led to a call of the skill. */
export interface UsageExample {
  id: string
  skill: string
  query: string
  /** ms since the epoch. */
  at: number
}

/** Age buckets in half-lives, each indexed as a field of its own weighted 1, ½, ¼, ⅛: exponential decay in steps. */
const BUCKETS = [1, 2, 4, 7] as const
export const USAGE_FIELDS = ['usage0', 'usage1', 'usage2', 'usage3'] as const
export type UsageFields = Record<(typeof USAGE_FIELDS)[number], string>

/** The newest requests kept per skill: plenty of evidence, and a caller looping calls can't grow it without bound. */
export const MAX_PER_SKILL = 500

/** The stored requests per skill (the newest, up to a cap), for indexing as the skill's usage fields. */
export class UsageLog {
  readonly #bySkill = new Map<string, UsageExample[]>()
  readonly #ids = new Set<string>()

  /** False when this example is already known (loaded twice, or learned here and read back). */
  add(example: UsageExample): boolean {
    if (this.#ids.has(example.id)) return false
    this.#ids.add(example.id)
    const list = this.#bySkill.get(example.skill)
    if (!list) this.#bySkill.set(example.skill, [example])
    else {
      list.push(example)
      if (list.length > MAX_PER_SKILL) {
        list.sort((a, b) => a.at - b.at)
        for (const dropped of list.splice(0, list.length - MAX_PER_SKILL)) this.#ids.delete(dropped.id)
      }
    }
    return true
  }

  /** Forget requests older than `before` (ms): they no longer weigh anything. */
  prune(before: number): void {
    for (const [skill, list] of this.#bySkill) {
      const kept = list.filter((e) => e.at >= before)
      for (const e of list) if (e.at < before) this.#ids.delete(e.id)
      if (kept.length) this.#bySkill.set(skill, kept)
      else this.#bySkill.delete(skill)
    }
  }

  get size(): number {
    return this.#ids.size
  }

  count(skill: string): number {
    return this.#bySkill.get(skill)?.length ?? 0
  }

  skills(): IterableIterator<string> {
    return this.#bySkill.keys()
  }

  /** The skill's stored requests by age; older than seven half-lives they weigh nothing and are left out. */
  fields(skill: string, now: number, halfLifeMs: number): UsageFields {
    const buckets: string[][] = [[], [], [], []]
    for (const example of this.#bySkill.get(skill) ?? []) {
      const age = Math.max(0, now - example.at) / halfLifeMs
      const bucket = BUCKETS.findIndex((limit) => age < limit)
      if (bucket >= 0) buckets[bucket]!.push(example.query)
    }
    return { usage0: buckets[0]!.join('\n'), usage1: buckets[1]!.join('\n'), usage2: buckets[2]!.join('\n'), usage3: buckets[3]!.join('\n') }
  }
}
