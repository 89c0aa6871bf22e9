/** A usage example: a request that led to a call of the skill. */
export interface UsageExample {
  id: string
  skill: string
  query: string
  /** ms since the epoch. */
  at: number
}

/** The newest requests kept per skill: plenty of evidence, and a caller looping calls can't grow it without bound. */
export const MAX_PER_SKILL = 500

/** The stored requests per skill (the newest, up to a cap): what the index has learned, so it can be unlearned. */
export class UsageLog {
  readonly #bySkill = new Map<string, UsageExample[]>()
  readonly #ids = new Set<string>()

  /** Keep an example; it is new unless its id is known (loaded twice, or learned here and read back). Returns what the cap pushed out. */
  add(example: UsageExample): { added: boolean; dropped: UsageExample[] } {
    if (this.#ids.has(example.id)) return { added: false, dropped: [] }
    this.#ids.add(example.id)
    const list = this.#bySkill.get(example.skill)
    if (!list) {
      this.#bySkill.set(example.skill, [example])
      return { added: true, dropped: [] }
    }
    list.push(example)
    if (list.length <= MAX_PER_SKILL) return { added: true, dropped: [] }
    list.sort((a, b) => a.at - b.at)
    const dropped = list.splice(0, list.length - MAX_PER_SKILL)
    for (const e of dropped) this.#ids.delete(e.id)
    return { added: true, dropped }
  }

  /** Forget requests older than `before` (ms): they no longer weigh anything. Returns them. */
  prune(before: number): UsageExample[] {
    const dropped: UsageExample[] = []
    for (const [skill, list] of this.#bySkill) {
      const kept = list.filter((e) => e.at >= before)
      if (kept.length === list.length) continue
      for (const e of list) {
        if (e.at >= before) continue
        this.#ids.delete(e.id)
        dropped.push(e)
      }
      if (kept.length) this.#bySkill.set(skill, kept)
      else this.#bySkill.delete(skill)
    }
    return dropped
  }

  get size(): number {
    return this.#ids.size
  }

  count(skill: string): number {
    return this.#bySkill.get(skill)?.length ?? 0
  }

  examples(skill: string): readonly UsageExample[] {
    return this.#bySkill.get(skill) ?? []
  }
}
