import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'

const KEY_FILE = 'secrets-key'
export const SECRETS_KEY_ENV = 'SKILLPLANE_SECRETS_KEY'
const FORMAT = 'v1'

/**
 * The AES-256-GCM key secrets and settings are sealed with, kept in the data dir (0600) or
 * SKILLPLANE_SECRETS_KEY. Each ciphertext is bound to its row (kind, name, scope, subject) as
 * associated data, so a ciphertext copied onto another row no longer opens.
 */
export class SecretsKey {
  private constructor(
    private readonly key: Buffer,
    /** Where the key came from, for error messages. */
    readonly source: string,
  ) {}

  /** The key from SKILLPLANE_SECRETS_KEY, else the data dir's file, created on first use. */
  static load(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretsKey {
    const fromEnv = env[SECRETS_KEY_ENV]?.trim()
    if (fromEnv) {
      if (!/^[0-9a-f]{64}$/i.test(fromEnv)) throw new Error(`${SECRETS_KEY_ENV} must be 64 hex digits (32 random bytes)`)
      return new SecretsKey(Buffer.from(fromEnv, 'hex'), SECRETS_KEY_ENV)
    }
    const file = join(dataDir, KEY_FILE)
    mkdirSync(dataDir, { recursive: true })
    // Written whole under another name, then linked: a manager starting at the same moment never reads a half-written key.
    if (!existsSync(file)) {
      const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`
      writeFileSync(draft, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 })
      try {
        linkSync(draft, file)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      } finally {
        unlinkSync(draft)
      }
    }
    const hex = readFileSync(file, 'utf8').trim()
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} is not a 64-digit hex key`)
    return new SecretsKey(Buffer.from(hex, 'hex'), file)
  }

  /** A new random key, not yet stored anywhere. */
  static generate(): SecretsKey {
    return new SecretsKey(randomBytes(32), 'a new key')
  }

  /** The key as the key file and SKILLPLANE_SECRETS_KEY hold it: to be handed to every manager. */
  hex(): string {
    return this.key.toString('hex')
  }

  /**
   * Write this key to `secrets-key.new` in the data dir (0600), to be moved over the key file once
   * what it seals is committed: a failure before then leaves the old key in place, one after leaves
   * the new key on disk (where a key from the environment stays until it is set there).
   */
  stage(dataDir: string): { file: string; staged: string; commit(): void; discard(): void } {
    const file = join(dataDir, KEY_FILE)
    const staged = `${file}.new`
    mkdirSync(dataDir, { recursive: true })
    // Removed first: a file left by an earlier rotation keeps its mode, and its key opens nothing now.
    rmSync(staged, { force: true })
    // On disk (file and folder entry synced) before the commit that makes it the only key that opens the secrets.
    const fd = openSync(staged, 'wx', 0o600)
    try {
      writeSync(fd, this.hex() + '\n')
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    syncFolder(dataDir)
    return {
      file,
      staged,
      commit: () => {
        renameSync(staged, file)
        syncFolder(dataDir)
      },
      discard: () => rmSync(staged, { force: true }),
    }
  }

  /** A public fingerprint of the key: managers compare it through the database. */
  fingerprint(): string {
    return createHmac('sha256', this.key).update('skillplane secrets key fingerprint').digest('hex').slice(0, 16)
  }

  seal(value: string, boundTo: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(boundTo))
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
    return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
  }

  /** The value, or null when the ciphertext was made under another key or for another row. */
  open(sealed: string, boundTo: string): string | null {
    if (!sealed.startsWith(`${FORMAT}:`)) return null
    const raw = Buffer.from(sealed.slice(FORMAT.length + 1), 'base64')
    if (raw.length < 28) return null
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
      decipher.setAAD(Buffer.from(boundTo))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      return null
    }
  }
}

// A rename or a new file survives a power loss only once its folder's entry is synced.
function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
