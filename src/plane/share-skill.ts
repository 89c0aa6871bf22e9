import type { Actor, AuditEvents } from '../audit/index.js'
import type { ApiKeys } from '../auth/index.js'
import { SharingError, type Catalog, type SkillSharing } from '../registry/index.js'

/** What sharing a skill did, or why it could not. */
export type ShareOutcome =
  { ok: true; key: string; sharing: SkillSharing; notes: string[] } | { ok: false; code: 'not_found' | 'invalid_input' | 'not_synced'; message: string }

export interface ShareDeps {
  catalog: Catalog
  keys: Pick<ApiKeys, 'list'>
  events: Pick<AuditEvents, 'record'>
  /** Whether any source offers a skill of this key (executable or instruction). */
  exists(key: string): boolean
  now(): string
}

/**
 * Store who may see a skill and put it on record. Notes name what the sharing alone does not do:
 * an agent it names that is not bound to the skill, a user no active person key names yet.
 */
export async function shareSkill(deps: ShareDeps, key: string, sharing: SkillSharing, by: Actor): Promise<ShareOutcome> {
  if (!deps.exists(key)) return { ok: false, code: 'not_found', message: `no skill with key "${key}"` }
  let stored: SkillSharing | undefined
  try {
    stored = await deps.catalog.setSharing(key, sharing, deps.now())
  } catch (error) {
    if (error instanceof SharingError) return { ok: false, code: 'invalid_input', message: `invalid sharing: ${error.message}` }
    throw error
  }
  if (!stored) return { ok: false, code: 'not_synced', message: `skill "${key}" has no catalog row yet: run skillplane sync` }
  await deps.events.record('skill.shared', `skill:${key}`, by, { sharing: stored })
  const notes: string[] = []
  if (stored.visibility === 'agents') {
    for (const agent of stored.agents) {
      if (!deps.catalog.isBound(agent, key)) notes.push(`agent "${agent}" is not bound to "${key}": it sees the skill once it is bound`)
    }
  }
  if (stored.visibility === 'users') {
    const people = (await deps.keys.list()).filter((k) => k.revokedAt === null && k.role !== 'agent')
    for (const user of stored.users) {
      if (!people.some((k) => k.name === user || k.id === user))
        notes.push(`no active person key is named "${user}" yet: the skill is shared with it once one is`)
    }
  }
  return { ok: true, key, sharing: stored, notes }
}
