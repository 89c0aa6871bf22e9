import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalize from 'canonicalize'

const SECRET_FILE = 'approval-secret'
export const SECRET_ENV = 'SKILLPLANE_APPROVAL_SECRET'

/**
 * HMAC seals over approval requests and decisions under a secret kept in the data dir, so a row
 * edited in the database (other arguments, a forged decision) no longer verifies.
 */
export class ApprovalSeal {
  constructor(
    private readonly secret: Buffer,
    /** Where the secret came from, for error messages. */
    readonly source: string,
  ) {}

  /**
   * The secret from SKILLPLANE_APPROVAL_SECRET, else the data dir's file, created (0600) on first
   * use. Managers sharing a database must share it.
   */
  static load(dataDir: string, env: NodeJS.ProcessEnv = process.env): ApprovalSeal {
    const fromEnv = env[SECRET_ENV]?.trim()
    if (fromEnv) {
      if (!/^[0-9a-f]{64}$/i.test(fromEnv)) throw new Error(`${SECRET_ENV} must be 64 hex digits (32 random bytes)`)
      return new ApprovalSeal(Buffer.from(fromEnv, 'hex'), SECRET_ENV)
    }
    const file = join(dataDir, SECRET_FILE)
    mkdirSync(dataDir, { recursive: true })
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const hex = readFileSync(file, 'utf8').trim()
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} is not a 64-digit hex secret`)
    return new ApprovalSeal(Buffer.from(hex, 'hex'), file)
  }

  /** A public fingerprint of the secret: managers compare it through the database. */
  fingerprint(): string {
    return this.seal({ purpose: 'skillplane approval secret fingerprint' }).slice(0, 16)
  }

  seal(fields: Record<string, unknown>): string {
    return createHmac('sha256', this.secret)
      .update(canonicalize(fields) ?? '')
      .digest('hex')
  }

  verify(fields: Record<string, unknown>, seal: string): boolean {
    const expected = Buffer.from(this.seal(fields), 'hex')
    const given = Buffer.from(seal, 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
}
