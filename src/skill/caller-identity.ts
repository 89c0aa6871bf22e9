import type { Caller, CallerAuth } from './skill-types.js'

/** Who stands behind a caller, as calls, approval requests and decisions record it. */
export interface RecordedIdentity {
  /** The user: a person caller's own id, an agent key's user; null for an agent without one. */
  userId: string | null
  displayName: string | null
  /** null: an in-process caller (the library, the local CLI). */
  auth: CallerAuth | null
  keyId: string | null
}

export function identityOf(caller: Caller): RecordedIdentity {
  const userId = caller.kind === 'user' ? caller.id : (caller.userId ?? null)
  return {
    userId,
    displayName: caller.displayName ?? (caller.kind === 'user' ? caller.name : null),
    auth: caller.auth ?? null,
    keyId: caller.keyId ?? null,
  }
}
