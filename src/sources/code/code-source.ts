import type { Registry } from '../../registry/index.js'
import type { SkillDefinition } from '../../skill/index.js'
import type { SkillSource, SourceReport } from '../skill-source/index.js'

export interface CodeDefinition {
  definition: SkillDefinition
  origin: string
  /** A skill the config may replace: skipped, silently, when its key is taken. Otherwise a taken key is refused. */
  yields?: boolean
}

/** Skills defined in code: the config's `skills` (kind `code`), or the plane's built-ins (kind `built-in`). */
export function codeSource(kind: 'code' | 'built-in', definitions: readonly CodeDefinition[], registry: Registry): SkillSource {
  const keys: string[] = []
  return {
    kind,
    async start() {
      for (const { definition, origin, yields } of definitions) {
        if (yields && registry.get(definition.key)) continue
        registry.register(definition, { source: 'code', origin })
        keys.push(definition.key)
      }
    },
    // Code changes with a restart, not a reload.
    async reload() {},
    report: () => byOrigin(keys.filter((key) => registry.get(key) !== undefined).map((key) => registry.get(key)!)),
    async close() {},
  }
}

/** One entry per file (a code skill's origin less its line) or built-in module, its skills sorted. */
function byOrigin(skills: ReadonlyArray<{ key: string; origin: string }>): SourceReport {
  const origins = new Map<string, string[]>()
  for (const skill of skills) {
    const origin = skill.origin.replace(/:\d+(:\d+)?$/, '')
    origins.set(origin, [...(origins.get(origin) ?? []), skill.key])
  }
  return {
    skills: skills.map((s) => s.key).sort(),
    entries: [...origins].map(([name, keys]) => ({ name, state: 'loaded', reason: null, skills: keys.sort(), problems: [], details: {} })),
    findings: [],
  }
}
