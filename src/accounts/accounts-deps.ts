import type { UserRepository } from '../store/index.js'
import type { CallerRole } from '../skill/index.js'
import { isRole, ROLES } from '../abilities/index.js'
import { AccountError } from './account-error.js'

/** Who an audited change is by (an Actor of the audit's events). */
export interface ChangeActor {
  id: string
  name: string
}

/** Writes an audit event (AuditEvents.record). */
export type RecordEvent = (kind: string, subject: string, actor: ChangeActor, details: Record<string, unknown>) => Promise<void>

export interface AccountsDeps {
  repo: UserRepository
  record: RecordEvent
  /** Called after anything that changes who a key stands for (the keys' cache forgets). */
  changed(): void
  /** Called after a user is disabled: their console sessions end. */
  disabled?(userId: string): Promise<unknown>
  now(): string
}

export const MAX_NAME = 100
// Names come from people and identity providers (e-mail addresses, "Alice Smith"): any printable text.
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f]/
/** Text with its control characters removed (names and display names from an identity provider). */
export const withoutControls = (text: string): string => text.replace(new RegExp(CONTROL, 'g'), '')
// A user or group id: a name that reads like one would be taken for another's id wherever both are accepted.
const ID_SHAPED = /^[0-9A-HJKMNP-TV-Z]{26}$/i

/** Why a user or group name can't be used, or null. */
export function nameProblem(what: 'user' | 'group', name: string): string | null {
  if (name.trim() === '') return `a ${what} name must not be empty`
  if (name !== name.trim()) return `${what} name "${name}" has spaces at its start or end`
  if (name.length > MAX_NAME) return `a ${what} name has at most ${MAX_NAME} characters`
  if (CONTROL.test(name)) return `${what} name ${JSON.stringify(name)} has control characters`
  if (ID_SHAPED.test(name)) return `${what} name "${name}" looks like an id: choose another`
  return null
}

/** A role as given (null: none), or invalid_input for one that is not. */
export function roleOf(value: string | null | undefined): CallerRole | null {
  if (value === null || value === undefined) return null
  if (!isRole(value)) throw new AccountError('invalid_input', `unknown role "${value}": use ${ROLES.join(', ')}`)
  return value
}
