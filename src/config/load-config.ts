import { existsSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { ConfigInput } from './define-config.js'
import { ConfigError } from './config-error.js'

export const DEFAULT_CONFIG_FILES = ['skillplane.config.ts', 'skillplane.config.mts', 'skillplane.config.js', 'skillplane.config.mjs']

/** The config file to use: the given path, else a skillplane.config.* in cwd, else none. */
export function findConfigFile(path: string | undefined, cwd = process.cwd()): string | null {
  if (path) {
    const absolute = resolve(cwd, path)
    if (!existsSync(absolute)) throw new ConfigError(`config file not found: ${path}`)
    return absolute
  }
  for (const name of DEFAULT_CONFIG_FILES) {
    const candidate = resolve(cwd, name)
    if (existsSync(candidate)) return candidate
  }
  return null
}

/** Import a TypeScript or JavaScript config file (jiti: Node 20 can't run TypeScript itself). */
export async function loadConfigFile(file: string): Promise<ConfigInput> {
  const { createJiti } = await import('jiti')
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: transpileCache(file), interopDefault: false })
  let loaded: unknown
  try {
    loaded = ((await jiti.import(file)) as { default?: unknown }).default
  } catch (error) {
    const message = (error as Error).message ?? String(error)
    throw new ConfigError(`cannot load config ${where(file, message)}: ${firstLine(message)}`)
  }
  if (loaded === undefined || loaded === null) {
    throw new ConfigError(`config ${file} has no default export: export default defineConfig({ ... })`)
  }
  return loaded as ConfigInput
}

/**
 * The config file, and where the parser stopped when it names a place (the config itself or a file
 * it imports, such as a skill), as editors count it: the parser counts columns from 0.
 */
function where(file: string, message: string): string {
  const at = /(\S+):(\d+):(\d+)\s*$/.exec(message)
  if (!at || !isAbsolute(at[1]!)) return file
  const place = `${at[1]}:${at[2]}:${Number(at[3]) + 1}`
  return at[1] === file ? place : `${file}: ${place}`
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? text
  )
}

/**
 * Where transpiled config files are kept between runs (keyed by their content, so an edit is seen):
 * the project's own nearest `node_modules/.cache`, when this user owns it; never a shared temporary
 * directory, where another user could plant code for the next run. False: transpile every time.
 */
function transpileCache(file: string): string | false {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules')
    try {
      const owner = statSync(modules)
      if (owner.isDirectory()) return owner.uid === process.getuid?.() ? join(modules, '.cache', 'skillplane-config') : false
    } catch {
      // No node_modules here: look one level up.
    }
    if (dirname(dir) === dir) return false
  }
}
