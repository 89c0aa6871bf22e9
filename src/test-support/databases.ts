import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { createTestDatabase } from './postgres.js'

export interface TestDatabase {
  name: 'sqlite' | 'postgres'
  /** Options for createSkillplane: a fresh data dir, and for postgres a fresh database. */
  create(): Promise<{ dataDir: string; databaseUrl?: string }>
}

const postgresUrl = inject('postgresUrl')

export function tempDir(prefix = 'skillplane-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Both dialects; PostgreSQL only when the global setup found or started a server. */
export const databases: TestDatabase[] = [
  { name: 'sqlite', create: async () => ({ dataDir: tempDir() }) },
  ...(postgresUrl
    ? [{ name: 'postgres' as const, create: async () => ({ dataDir: tempDir(), databaseUrl: await createTestDatabase(postgresUrl) }) }]
    : []),
]
