import { userInfo } from 'node:os'
import type { Skillplane } from '../../agents/index.js'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { ConfigInput } from '../../config/index.js'
// Finding the config file needs neither the config schema nor the loader (its leaf module, not the face).
import { DEFAULT_CONFIG_FILES, findConfigFile, loadConfigFile } from '../../config/load-config.js'
import { CliError } from './cli-error.js'
import type { Caller } from '../../skill/index.js'

export interface GlobalOptions {
  dataDir: string
  config?: string
  databaseUrl?: string
}

/** Load the config and open the store the way every command does; logs go to stderr. */
export async function openPlane(
  options: GlobalOptions,
  extra: {
    sync?: boolean
    logLevel?: string
    packDirs?: string[]
    connectMcp?: boolean
    resumeRuns?: boolean
    dailySweeps?: boolean
    sources?: boolean
    services?: boolean
  } = {},
): Promise<Skillplane> {
  // Loaded here, not at start: `--help`, `--version` and usage errors never pay for the whole plane.
  const [{ createLogger }, { createSkillplane }] = await Promise.all([import('../../config/index.js'), import('../../agents/index.js')])
  const logger = createLogger(extra.logLevel ?? 'warn', 2)
  const file = findConfigFile(options.config)
  // Run in the wrong folder, a command must not start an empty skillplane there; existing state stays reachable.
  if (!file && !extra.packDirs) {
    const looked = `looked for ${DEFAULT_CONFIG_FILES.join(', ')} in ${process.cwd()}`
    if (!options.databaseUrl && !existsSync(resolve(options.dataDir))) {
      throw new CliError(`no config found (${looked}): run skillplane in your project's folder, or pass --config FILE`)
    }
    process.stderr.write(`skillplane: no config found (${looked}); opening ${options.databaseUrl ? 'the database' : resolve(options.dataDir)} without one\n`)
  }
  const loaded = file ? await loadConfigFile(file) : {}
  // packs test: only the pack under test is loaded, so nothing configured competes for its name.
  const config: ConfigInput = extra.packDirs
    ? async (env) => {
        const base = typeof loaded === 'function' ? await loaded(env) : loaded
        return { ...base, packDirs: extra.packDirs }
      }
    : loaded
  return createSkillplane({
    config,
    configSource: file ?? '(none)',
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    logger,
    sync: extra.sync,
    // Only commands that list or run skills pay for starting MCP servers.
    connectMcp: extra.connectMcp ?? false,
    // Only long-lived commands (serve, mcp) carry on runs whose approvals were decided.
    resumeRuns: extra.resumeRuns ?? false,
    // Only serve takes the day's sweeps: a one-shot or stdio command may run from any folder.
    dailySweeps: extra.dailySweeps ?? false,
    // Commands that only touch the store load no source; only long-lived servers start the config's services.
    sources: extra.sources ?? true,
    services: extra.services ?? false,
  })
}

/** The CLI acts as a local admin: whoever can run it can read the data dir anyway. */
export function localAdmin(): Caller {
  let user = 'unknown'
  try {
    user = userInfo().username
  } catch {
    // No passwd entry (containers): keep "unknown".
  }
  return { kind: 'user', id: 'local', name: `local:${user}`, role: 'admin' }
}

/** Run fn with an open plane and always close it. */
export async function withPlane<T>(
  options: GlobalOptions,
  fn: (plane: Skillplane) => Promise<T>,
  extra?: { sync?: boolean; connectMcp?: boolean; sources?: boolean },
): Promise<T> {
  const plane = await openPlane(options, extra)
  try {
    return await fn(plane)
  } finally {
    await plane.close()
  }
}

/** withPlane for commands that only read and write the store: no skill source loads, no service or server starts. */
export function withStore<T>(options: GlobalOptions, fn: (plane: Skillplane) => Promise<T>): Promise<T> {
  return withPlane(options, fn, { sources: false })
}
