import { createSkill, type Skill, type CreateSkillOptions, DefinitionError, type SkillDefinition, type SkillClass, CLASSES } from '../skill/index.js'

/** The in-memory set of skills and their executors. Sources register; only the pipeline executes. */
export class Registry {
  readonly #skills = new Map<string, Skill>()
  /** The skills in key order, kept until the set changes: listings and discovery ask for it often, 10,000 at a time. */
  #sorted: Skill[] | undefined
  readonly #defaultTimeoutMs: number
  /** Called after the set of skills changed. */
  onChange: () => void = () => {}
  /** The catalog's raise of a skill's class, if any; applied at registration and by reapplyClasses. */
  classOverride: (key: string) => SkillClass | null = () => null

  constructor(options: { defaultTimeoutMs: number }) {
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
    // Applied before the skill is reachable, so a re-registered skill (an edge reconnecting) never runs below its raise.
    skill.class = this.#effectiveClass(skill)
    this.#skills.set(skill.key, skill)
    this.#changed()
    return skill
  }

  /** After catalog edits: each skill's class (of those named, or all) is its raise or, without one, its declared class. */
  reapplyClasses(keys?: readonly string[]): void {
    if (!keys) for (const skill of this.#skills.values()) skill.class = this.#effectiveClass(skill)
    else
      for (const key of keys) {
        const skill = this.#skills.get(key)
        if (skill) skill.class = this.#effectiveClass(skill)
      }
  }

  /** The stricter of the declared class and the raise: a definition that later declares more wins. */
  #effectiveClass(skill: Skill): SkillClass {
    const raised = this.classOverride(skill.key)
    return raised && CLASSES.indexOf(raised) > CLASSES.indexOf(skill.declaredClass) ? raised : skill.declaredClass
  }

  /** Drop every skill a source registered (before it registers its current set again). */
  removeSource(source: Skill['source']): Skill[] {
    const removed = [...this.#skills.values()].filter((s) => s.source === source)
    for (const skill of removed) this.#skills.delete(skill.key)
    if (removed.length) this.#changed()
    return removed
  }

  /** Drop one skill (a source whose set changed); calls already running keep their executor. */
  unregister(key: string): void {
    if (this.#skills.delete(key)) this.#changed()
  }

  #changed(): void {
    this.#sorted = undefined
    this.onChange()
  }

  get(key: string): Skill | undefined {
    return this.#skills.get(key)
  }

  list(): Skill[] {
    this.#sorted ??= [...this.#skills.values()].sort((a, b) => a.key.localeCompare(b.key))
    return [...this.#sorted]
  }

  /** The manager's own skills: those edges offer come and go with the edges, so they are not counted. */
  get ownCount(): number {
    let count = 0
    for (const skill of this.#skills.values()) if (skill.source !== 'edge') count++
    return count
  }
}
