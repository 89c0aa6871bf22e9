import type { Kysely } from 'kysely'
import { StoreError, type Database } from '../store/index.js'
import type { Actor } from '../audit/index.js'
import type { Connections } from './connections.js'
import { SecretsKey } from './secrets-key.js'

/** What `rotateSecretsKey` did. */
export interface SecretsKeyRotation {
  resealed: number
  /** Values the old key could not open (they were unreadable before too): left as they were. */
  unreadable: number
  fingerprint: string
  /**
   * Where the new key was written: the data dir's key file, or, when the key came from the
   * environment, `secrets-key.new` beside it (written before the commit, so a crash cannot lose it).
   */
  keyFile: string
  /** The new key, only when it came from the environment (to be set there). */
  key: string | null
}

type Peer = { hostname: string; pid: number }

export interface RotationParts {
  connections: Connections
  dataDir: string
  /** Whether the key the plane started with came from SKILLPLANE_SECRETS_KEY (then the new one is returned to be set there). */
  keyFromEnv: boolean
  /** The other managers alive on the database, read through `db` when given (inside the rotation's transaction). */
  peers(db?: Kysely<Database>): Promise<Peer[]>
}

/**
 * Re-seal every secret and setting under a new key, atomically, and store the key. Refused while
 * another manager runs on the database (looked at again inside the transaction): each must restart
 * with the new key.
 */
export async function rotateSecretsKey({ connections, dataDir, keyFromEnv, peers }: RotationParts, by: Actor): Promise<SecretsKeyRotation> {
  const busy = (found: Peer[]) =>
    new StoreError(
      `other managers are running on this database (${found.map((p) => `${p.hostname} pid ${p.pid}`).join(', ')}): stop them, rotate, then start each with the new key`,
    )
  const running = await peers()
  if (running.length > 0) throw busy(running)
  const next = SecretsKey.generate()
  // Written before the commit either way: a crash right after it must not take the only copy of the new key.
  const staged = next.stage(dataDir)
  let counts
  try {
    counts = await connections.rotateKey(
      next,
      'secrets_key_fingerprint',
      // Again inside the transaction: a manager that started since the look above still runs on the old key.
      async (trx) => {
        const late = await peers(trx)
        if (late.length > 0) throw busy(late)
      },
      by,
    )
  } catch (error) {
    staged.discard()
    throw error
  }
  // A key from the environment stays in the environment: the staged file is where the new one waits to be set there.
  if (!keyFromEnv) staged.commit()
  return { ...counts, fingerprint: next.fingerprint(), keyFile: keyFromEnv ? staged.staged : staged.file, key: keyFromEnv ? next.hex() : null }
}
