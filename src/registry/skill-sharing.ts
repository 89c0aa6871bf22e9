import { seesEverySkill } from '../abilities/index.js'
import { SkillplaneError } from '../errors/index.js'

/**
 * Who may see a skill: everyone (the default), the named agents (by id once stored), or the named
 * users (user names or ids). Admins see every skill whatever it says; src/access decides.
 */
export type SkillSharing = { visibility: 'all' } | { visibility: 'agents'; agents: string[] } | { visibility: 'users'; users: string[] }

export const SHARED_WITH_ALL: SkillSharing = Object.freeze({ visibility: 'all' })

/** A sharing that can't be stored: an agent no one knows, or an empty list. */
export class SharingError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override readonly name = 'SharingError'
}

/** The stored column back into a sharing; a row without one (or one this version can't read) is shared with all. */
export function parseSharing(text: string | null | undefined): SkillSharing {
  if (!text) return SHARED_WITH_ALL
  const value = JSON.parse(text) as { visibility?: unknown; agents?: unknown; users?: unknown }
  const names = (list: unknown) => (Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [])
  if (value.visibility === 'agents') return { visibility: 'agents', agents: names(value.agents) }
  if (value.visibility === 'users') return { visibility: 'users', users: names(value.users) }
  return SHARED_WITH_ALL
}

/** Sharing as a viewer sees it: those who see every skill (and the local CLI) see whom it names, others only the visibility. */
export type SharingView = SkillSharing | { visibility: SkillSharing['visibility'] }

export function sharingView(sharing: SkillSharing, viewer?: { kind: 'user'; role: string } | { kind: 'agent' }): SharingView {
  return !viewer || seesEverySkill(viewer) ? sharing : { visibility: sharing.visibility }
}
