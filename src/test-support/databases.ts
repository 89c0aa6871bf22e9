import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, inject } from 'vitest'
import { createTestDatabase } from './postgres.js'

export interface TestDatabase {
  name: 'sqlite' | 'postgres'
  /** Options for createSkillplane: a fresh data dir, and for postgres a fresh database. */
  create(): Promise<{ dataDir: string; databaseUrl?: string }>
}

const postgresUrl = inject('postgresUrl')

const created: string[] = []

// Each test file removes the directories it made once its tests are done.
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
})

export function tempDir(prefix = 'skillplane-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  created.push(dir)
  return dir
}

/** A fresh temporary folder holding these files (path → content); `executable` paths get mode 0755. */
export function tree(files: Record<string, string>, executable: string[] = []): string {
  const root = tempDir('skillplane-tree-')
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  for (const path of executable) chmodSync(join(root, path), 0o755)
  return root
}

/**
 * Poll until check() holds (for state another process or a background task produces). No deadline
 * by default: the test's timeout stops a hung wait, so a loaded machine is slow, not failing.
 */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = Infinity): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Both dialects; PostgreSQL only when the global setup found or started a server. */
export const databases: TestDatabase[] = [
  { name: 'sqlite', create: async () => ({ dataDir: tempDir() }) },
  ...(postgresUrl ? [{ name: 'postgres' as const, create: async () => ({ dataDir: tempDir(), databaseUrl: await createTestDatabase(postgresUrl) }) }] : []),
]
