import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalize from 'canonicalize'

export const SECRET_FILE = 'approval-secret'

/**
 * HMAC seals over approval requests and decisions under a secret kept in the data dir, so a row
 * edited in the database (other arguments, a forged decision) no longer verifies.
 */
export class ApprovalSeal {
  constructor(private readonly secret: Buffer) {}

  /** Read the data dir's secret, creating it (0600) on first use. Managers sharing a database share this file. */
  static fromDataDir(dataDir: string): ApprovalSeal {
    const file = join(dataDir, SECRET_FILE)
    mkdirSync(dataDir, { recursive: true })
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const hex = readFileSync(file, 'utf8').trim()
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a 64-digit hex secret`)
    return new ApprovalSeal(Buffer.from(hex, 'hex'))
  }

  seal(fields: Record<string, unknown>): string {
    return createHmac('sha256', this.secret).update(canonicalize(fields) ?? '').digest('hex')
  }

  verify(fields: Record<string, unknown>, seal: string): boolean {
    const expected = Buffer.from(this.seal(fields), 'hex')
    const given = Buffer.from(seal, 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
}
