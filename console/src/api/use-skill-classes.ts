import { api, unwrap } from './client'
import { useApi } from './use-api'
import type { SkillClass } from './types'

/** The class of each skill the key may see: bound skills it can't see show without one. */
export function useSkillClasses(): Map<string, SkillClass> {
  const skills = useApi(() => unwrap(api.GET('/api/skills')), [])
  return new Map((skills.data?.skills ?? []).map((s) => [s.key, s.class]))
}
