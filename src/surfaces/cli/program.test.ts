import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { tempDir, tree } from '../../test-support/databases.js'
import { TEST_TIMEOUT_MS } from '../../test-support/test-timeout.js'

const DIST = join(import.meta.dirname, '../../../dist')
const MAIN = join(DIST, 'surfaces/cli/main.js')
const CONFIG = join(import.meta.dirname, '../../test-support/cli.config.ts')
// What opening the plane pulls in; a command that does not open it must load none of these.
// (The build bundles most packages into dist/chunks/, so the plane's own file is looked for too.)
const HEAVY = ['pg', 'better-sqlite3', 'kysely', '@modelcontextprotocol/sdk', 'ai', '@ai-sdk/openai', 'hono', '@hono/node-server', 'jiti', 'pino', 'zod', 'ajv']
// The built files that define createSkillplane (the bundle's chunk, and tsc's own module).
const PLANE = readdirSync(DIST, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.js'))
  .map((file) => join(DIST, file))
  .filter((file) => /^(export )?(async )?function createSkillplane\(/m.test(readFileSync(file, 'utf8')))
  .map((file) => pathToFileURL(file).href)

// A module resolve hook (Node's own loader API) that writes down every module the CLI loads.
const hooks = tree({
  'hooks.mjs': `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(process.env.SKILLPLANE_TEST_LOADED, resolved.url + '\\n')
  return resolved
}
`,
  'register.mjs': `import { register } from 'node:module'
register('./hooks.mjs', import.meta.url)
`,
})

/** Run the CLI; its exit code, the npm packages it loaded and whether it loaded the plane's code. */
function loads(args: string[]): { code: number | null; packages: Set<string>; plane: boolean } {
  const record = join(tempDir('skillplane-loaded-'), 'loaded.txt')
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn', SKILLPLANE_TEST_LOADED: record }
  delete env.SKILLPLANE_DATABASE_URL
  const run = spawnSync(process.execPath, ['--import', join(hooks, 'register.mjs'), MAIN, ...args], { encoding: 'utf8', env, timeout: TEST_TIMEOUT_MS })
  const urls = readFileSync(record, 'utf8').split('\n')
  const packages = new Set(urls.map((url) => [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1)?.[1]).filter((name) => name !== undefined))
  return { code: run.status, packages, plane: urls.some((url) => PLANE.includes(url)) }
}

describe('CLI start-up', () => {
  it('loads what a command needs only when that command runs: help, version and validate never load the plane', () => {
    // The hook sees the plane's packages when a command does open it.
    const list = loads(['--data-dir', tempDir(), '--config', CONFIG, 'skills', 'list'])
    expect(list.code).toBe(0)
    expect(['better-sqlite3', 'jiti'].filter((name) => list.packages.has(name))).toEqual(['better-sqlite3', 'jiti'])
    expect(list.plane).toBe(true)

    const skills = tree({ 'hello/SKILL.md': '---\nname: hello\ndescription: Say hello. Use when greeting someone.\n---\n# Hello\n\nSay hello.\n' })
    const runs: [string[], number][] = [
      [['--version'], 0],
      [['--help'], 0],
      [['skills', '--help'], 0],
      [['approvals', 'list', '--help'], 0],
      [['policies', 'set', '--help'], 0],
      [['frobnicate'], 1],
      [['skills', 'validate', skills], 0],
      [['init', '--dir', tempDir()], 0],
    ]
    for (const [args, code] of runs) {
      const run = loads(args)
      expect({ args, code: run.code, heavy: HEAVY.filter((name) => run.packages.has(name)), plane: run.plane }).toEqual({ args, code, heavy: [], plane: false })
    }
  })
})
