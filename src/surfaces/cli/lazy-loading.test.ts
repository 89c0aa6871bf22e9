import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../test-support/databases.js'
import { CLI_MAIN } from '../../test-support/run-cli.js'
import { TEST_TIMEOUT_MS } from '../../test-support/test-timeout.js'

const EXAMPLE_CONFIG = join(import.meta.dirname, '../../../examples/skillplane.config.ts')
const LIBRARY = join(import.meta.dirname, '../../../dist/index.js')
// The heavy packages a command loads only when it runs a model, embeds, or talks MCP.
const HEAVY = ['/node_modules/ai/', '/@modelcontextprotocol/sdk/']

/**
 * Run node with a loader hook that writes every module it resolves (ESM imports, and require()
 * calls, which jiti's config loading may use) to a file; returns the run and those module URLs.
 */
function traced(args: string[]): { code: number | null; stdout: string; stderr: string; modules: string[] } {
  const dir = tempDir('skillplane-lazy-')
  const log = join(dir, 'modules.txt')
  writeFileSync(log, '')
  const hooks = join(dir, 'hooks.mjs')
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n')
  return resolved
}
`,
  )
  const register = join(dir, 'register.mjs')
  writeFileSync(
    register,
    `import { appendFileSync } from 'node:fs'
import Module, { register } from 'node:module'
register(${JSON.stringify(pathToFileURL(hooks).href)})
const resolveFilename = Module._resolveFilename
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args)
  appendFileSync(${JSON.stringify(log)}, 'require:' + file + '\\n')
  return file
}
`,
  )
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' },
    timeout: TEST_TIMEOUT_MS,
  })
  const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, modules }
}

// The PostgreSQL driver: its package, or the built chunk the bundle put it in (esbuild names each bundled file in a comment).
const PG_DRIVER = [
  '/node_modules/pg/',
  ...readdirSync(join(import.meta.dirname, '../../../dist'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js') && readFileSync(join(import.meta.dirname, '../../../dist', file), 'utf8').includes('node_modules/pg/lib/client.js'))
    .map((file) => `/dist/${file}`),
]

const heavy = (modules: string[]) => modules.filter((url) => HEAVY.some((part) => url.includes(part)))

describe('module loading', () => {
  it('the tracer sees the AI SDK and the MCP SDK when they do load', () => {
    const run = traced(['--input-type=module', '-e', "await import('ai'); await import('@modelcontextprotocol/sdk/client/index.js')"])
    expect(run.code, run.stderr).toBe(0)
    expect(heavy(run.modules).some((url) => url.includes('/node_modules/ai/'))).toBe(true)
    expect(heavy(run.modules).some((url) => url.includes('/@modelcontextprotocol/sdk/'))).toBe(true)
  })

  it('a store-only command (keys list, with a config that names MCP servers) loads neither the AI SDK nor the MCP SDK', () => {
    const dataDir = tempDir()
    const run = traced([CLI_MAIN, '--config', EXAMPLE_CONFIG, '--data-dir', dataDir, 'keys', 'list'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/no keys/i)
    // The config and the store did load: the trace is of a real run.
    expect(run.modules.some((url) => url.endsWith('/dist/index.js'))).toBe(true)
    expect(run.modules.some((url) => url.includes('/node_modules/better-sqlite3/'))).toBe(true)
    expect(heavy(run.modules)).toEqual([])
    // SQLite needs no PostgreSQL driver (it loads only for a postgres:// URL).
    expect(PG_DRIVER.length).toBeGreaterThan(1)
    expect(run.modules.filter((url) => PG_DRIVER.some((part) => url.includes(part)))).toEqual([])
  })

  it("importing the library ('skillplane') loads neither the AI SDK nor the MCP SDK", () => {
    const run = traced([
      '--input-type=module',
      '-e',
      `const lib = await import(${JSON.stringify(pathToFileURL(LIBRARY).href)}); console.log(typeof lib.toAISDKTools)`,
    ])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe('function')
    expect(heavy(run.modules)).toEqual([])
  })
})
