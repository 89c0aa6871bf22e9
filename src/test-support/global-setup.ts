import type { TestProject } from 'vitest/node'
import { startTempPostgres, type TempPostgres } from './postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null
  }
}

/** PostgreSQL for the store tests: CI's server by URL, else a temporary cluster, else skip loudly. */
export default async function setup(project: TestProject) {
  let server: TempPostgres | null = null
  let url = process.env.SKILLPLANE_TEST_DATABASE_URL ?? null
  if (!url) {
    try {
      server = await startTempPostgres()
      url = server?.url ?? null
    } catch (error) {
      console.warn(`could not start a temporary PostgreSQL: ${(error as Error).message}`)
    }
  }
  if (!url) {
    if (process.env.SKILLPLANE_REQUIRE_POSTGRES === '1') {
      throw new Error('SKILLPLANE_REQUIRE_POSTGRES=1 but no PostgreSQL server is available')
    }
    console.warn(
      '\n' +
        '!'.repeat(78) +
        '\n!! PostgreSQL is not available: the PostgreSQL variants of the store tests are SKIPPED.\n' +
        '!! Install postgresql (initdb, pg_ctl) or set SKILLPLANE_TEST_DATABASE_URL.\n' +
        '!'.repeat(78) +
        '\n',
    )
  }
  project.provide('postgresUrl', url)
  return () => server?.stop()
}
