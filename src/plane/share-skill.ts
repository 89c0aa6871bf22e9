import type { Actor, AuditEvents } from '../audit/index.js'
import type { Users } from '../accounts/index.js'
import { SharingError, type Catalog, type SkillSharing } from '../registry/index.js'

/** What sharing a skill did, or why it could not. */
export type ShareOutcome =
  { ok: true; key: string; sharing: SkillSharing; notes: string[] } | { ok: false; code: 'not_found' | 'invalid_input' | 'not_synced'; message: string }

export interface ShareDeps {
  catalog: Catalog
  users: Pick<Users, 'list'>
  events: Pick<AuditEvents, 'record'>
  /** Whether any source offers a skill of this key (executable or instruction). */
  exists(key: string): boolean
  now(): string
}

/**
 * Store who may see a skill and put it on record. Notes name what the sharing alone does not do:
 * an agent it names that is not bound to the skill, a user that does not exist (yet) or is disabled.
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
    const people = await deps.users.list()
    for (const name of stored.users) {
      const user = people.find((u) => u.name === name) ?? people.find((u) => u.id === name)
      if (!user) notes.push(`no user is named "${name}" yet: the skill is shared with them once one is`)
      else if (user.disabledAt !== null) notes.push(`user "${name}" is disabled: they see it once enabled`)
    }
  }
  return { ok: true, key, sharing: stored, notes }
}
