import { createSkill, type Skill, type CreateSkillOptions, DefinitionError, type SkillDefinition, type SkillLogger } from '../skill/index.js'

/** The in-memory set of skills and their executors. Sources register; only the pipeline executes. */
export class Registry {
  readonly #skills = new Map<string, Skill>()
  readonly #logger: SkillLogger
  readonly #defaultTimeoutMs: number
  /** Called after the set of skills changed. */
  onChange: () => void = () => {}

  constructor(options: { logger: SkillLogger; defaultTimeoutMs: number }) {
    this.#logger = options.logger
    this.#defaultTimeoutMs = options.defaultTimeoutMs
  }

  register(definition: SkillDefinition, options: Omit<CreateSkillOptions, 'defaultTimeoutMs'>): Skill {
    const existing = this.#skills.get(definition.key)
    if (existing) {
      throw new DefinitionError(
        `duplicate skill key "${definition.key}": defined by ${existing.source} at ${existing.origin} ` + `and by ${options.source} at ${options.origin}`,
      )
    }
    const skill = createSkill(definition, { ...options, defaultTimeoutMs: this.#defaultTimeoutMs })
    if (!skill.classDeclared) {
      this.#logger.warn(
        { skill: skill.key, origin: skill.origin },
        `skill "${skill.key}" declares no class; registered as safe. Declare class: 'safe' | 'mutating' | 'dangerous'`,
      )
    }
    this.#skills.set(skill.key, skill)
    this.onChange()
    return skill
  }

  /** Drop every skill a source registered (before it registers its current set again). */
  removeSource(source: Skill['source']): Skill[] {
    const removed = [...this.#skills.values()].filter((s) => s.source === source)
    for (const skill of removed) this.#skills.delete(skill.key)
    if (removed.length) this.onChange()
    return removed
  }

  /** Drop one skill (a source whose set changed); calls already running keep their executor. */
  unregister(key: string): void {
    if (this.#skills.delete(key)) this.onChange()
  }

  get(key: string): Skill | undefined {
    return this.#skills.get(key)
  }

  list(): Skill[] {
    return [...this.#skills.values()].sort((a, b) => a.key.localeCompare(b.key))
  }

  get size(): number {
    return this.#skills.size
  }
}
