import { execFile, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { TEST_TIMEOUT_MS } from './test-timeout.js'

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
  options: { config?: string; input?: string; timeoutMs?: number; cwd?: string } = {},
): CliRun {
  const result = spawnSync(process.execPath, cliArgs(location, args, options), {
    encoding: 'utf8',
    env: cliEnv(),
    cwd: options.cwd,
    // A synchronous spawn blocks the test's own timeout, so it carries the same one.
    timeout: options.timeoutMs ?? TEST_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    ...(options.input !== undefined && { input: options.input }),
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) }
}

/** runCli without blocking this process: for a CLI that talks to a server this test runs. */
export function runCliAsync(
  location: { dataDir: string; databaseUrl?: string },
  args: string[],
  options: { config?: string; timeoutMs?: number; cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(location, args, options),
      // No deadline of its own: the test's timeout stops a hung one.
      { encoding: 'utf8', env: { ...cliEnv(), ...options.env }, cwd: options.cwd, timeout: options.timeoutMs ?? 0, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
        resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) })
      },
    )
  })
}

function cliArgs(location: { dataDir: string; databaseUrl?: string }, args: string[], options: { config?: string }): string[] {
  return [
    CLI_MAIN,
    '--data-dir',
    location.dataDir,
    '--config',
    options.config ?? CLI_TEST_CONFIG,
    ...(location.databaseUrl ? ['--database-url', location.databaseUrl] : []),
    ...args,
  ]
}

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }
  // The store is the one the test names, never one from the environment.
  delete env.SKILLPLANE_DATABASE_URL
  return env
}
