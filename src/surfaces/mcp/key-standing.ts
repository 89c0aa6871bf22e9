import type { Caller } from '../../skill/index.js'

// As long as an authenticated key is remembered (src/accounts/api-keys.ts): a peer's revocation reaches an open stream within it.
const CHECK_MS = 1_000

export interface KeyLookup {
  /** Who an active key (by id) stands for now, or null: revoked, or its user disabled. */
  callerFor(keyId: string): Promise<(Pick<Caller, 'kind'> & { role?: string }) | null>
}

/**
 * Whether the API key a /mcp session was opened with still stands for what it did (not revoked, its
 * user not disabled, the same role), checked at most once a second per key and afresh after `forget`.
 * Sessions opened without a key (a console session) stand: their own requests re-check them.
 */
export class KeyStanding {
  readonly #checked = new Map<string, { standing: Promise<string | null>; until: number }>()

  constructor(private readonly keys: KeyLookup) {}

  async stands(caller: Caller, role: string): Promise<boolean> {
    if (caller.auth !== 'key' || !caller.keyId) return true
    const now = Date.now()
    let entry = this.#checked.get(caller.keyId)
    if (!entry || entry.until <= now) {
      // The role the key stands for now (an agent key's is 'agent'), or null when it stands for nobody.
      const standing = this.keys.callerFor(caller.keyId).then(
        (current) => (current === null ? null : current.kind === 'user' ? (current.role ?? null) : 'agent'),
        // Unknown is not standing: the session ends and its client initialises again.
        () => null,
      )
      entry = { standing, until: now + CHECK_MS }
      if (this.#checked.size > 10_000) this.#checked.clear()
      this.#checked.set(caller.keyId, entry)
    }
    return (await entry.standing) === role
  }

  forget(): void {
    this.#checked.clear()
  }
}
