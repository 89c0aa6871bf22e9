import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/** The built CLI (tests that run it build first: `npm test` does). */
export const CLI_MAIN = join(import.meta.dirname, '../../dist/surfaces/cli/main.js')
/** The test config the CLI tests load (test skills and agents). */
export const CLI_TEST_CONFIG = join(import.meta.dirname, 'cli.config.ts')

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
  json(): any
}

/** Run the built CLI once against a store, as a user would, with the given config and stdin. */
export function runCli(
  location: { dataDir: string; databaseUrl?: string },
  args: string[],
  options: { config?: string; input?: string; timeoutMs?: number } = {},
): CliRun {
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }
  // The store is the one the test names, never one from the environment.
  delete env.SKILLPLANE_DATABASE_URL
  const result = spawnSync(
    process.execPath,
    [
      CLI_MAIN,
      '--data-dir',
      location.dataDir,
      '--config',
      options.config ?? CLI_TEST_CONFIG,
      ...(location.databaseUrl ? ['--database-url', location.databaseUrl] : []),
      ...args,
    ],
    { encoding: 'utf8', env, timeout: options.timeoutMs ?? 20_000, maxBuffer: 64 * 1024 * 1024, ...(options.input !== undefined && { input: options.input }) },
  )
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) }
}
