import { api, unwrap } from './client'
import type { paths } from './schema'
import type { SkillSummary } from './types'

export type SkillQuery = Omit<NonNullable<paths['/api/skills']['get']['parameters']['query']>, 'cursor' | 'limit'>

// The largest page the server serves: the fewest requests for a whole listing.
const PAGE = 500

/**
 * Every skill of a listing (the filters applied by the server), following `nextCursor` page by
 * page; `onPage` sees the skills so far after each page, so a long listing shows while it loads.
 */
export async function allSkills(query: SkillQuery = {}, onPage?: (sofar: SkillSummary[]) => void): Promise<SkillSummary[]> {
  const skills: SkillSummary[] = []
  let cursor: string | undefined
  do {
    const page = await unwrap(api.GET('/api/skills', { params: { query: { ...query, limit: PAGE, cursor } } }))
    skills.push(...page.skills)
    onPage?.([...skills])
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return skills
}
