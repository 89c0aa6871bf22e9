import { allSkills } from './all-skills'
import { useApi } from './use-api'
import type { SkillClass } from './types'

/** The class of each skill the key may see: bound skills it can't see show without one. */
export function useSkillClasses(): Map<string, SkillClass> {
  const skills = useApi(() => allSkills(), [])
  return new Map((skills.data ?? []).map((s) => [s.key, s.class]))
}
