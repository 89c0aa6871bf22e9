import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
// PEM (PKCS#1, PKCS#8, EC, encrypted), OpenSSH and PuTTY private keys.
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----|PuTTY-User-Key-File-[0-9]+:/

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean)
}

describe('the repository', () => {
  it('tracks no private key', () => {
    const files = tracked()
    expect(files.length).toBeGreaterThan(100)
    const holding = files.filter((file) => {
      try {
        return PRIVATE_KEY.test(readFileSync(join(ROOT, file), 'latin1'))
      } catch {
        // Listed but deleted in the work tree: nothing to read.
        return false
      }
    })
    expect(holding).toEqual([])
  })

  it('ignores the key files the README tells a reader to make', () => {
    for (const file of ['ops.key', 'keys/ops.key', 'signing.pem']) {
      const ignored = execFileSync('git', ['check-ignore', '--no-index', file], { cwd: ROOT, encoding: 'utf8' }).trim()
      expect(ignored).toBe(file)
    }
  })
})
