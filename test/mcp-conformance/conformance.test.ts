import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../src/test-support/databases.js'

const SCRIPT = join(import.meta.dirname, '../../scripts/mcp-conformance.mjs')
/** The script's exit code when Node 22 and the suite can't be installed (no npm registry). */
const UNAVAILABLE = 75

interface Run {
  code: number | null
  output: string
}

function script(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, ...args],
      { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
        resolve({ code, output: `${stdout}${stderr}` })
      },
    )
  })
}

interface Summary {
  passed: number
  total: number
  unexpected: string[]
  stale: string[]
  unknown: string[]
  scenarios: Array<{ name: string; passed: boolean; failures: Array<{ id: string; errorMessage: string }> }>
}

const summaryOf = (out: string): Summary => JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))

/** Node 22 and the suite, installed once (cached in node_modules/.cache); skips the test where the registry can't be reached. */
async function installed(skip: (note: string) => never): Promise<void> {
  const install = await script(['--install-only'])
  if (install.code === UNAVAILABLE) {
    const why = /^mcp-conformance: skipped: (.*)$/m.exec(install.output)?.[1] ?? install.output.trim()
    // CI reaches the registry: there a failed install fails the run instead of skipping the suite.
    if (process.env.SKILLPLANE_REQUIRE_MCP_CONFORMANCE === '1') throw new Error(`SKILLPLANE_REQUIRE_MCP_CONFORMANCE=1 but ${why}`)
    skip(`the MCP conformance suite (Node 22) can't run here: ${why}`)
  }
  expect(install, install.output).toMatchObject({ code: 0 })
}

describe('the MCP conformance suite (server scenarios) against /mcp', () => {
  it.for(databases)('every scenario passes except those the baseline lists and explains ($name)', async (database, { skip }) => {
    await installed(skip)
    const { databaseUrl } = await database.create()
    const out = tempDir('skillplane-conformance-')
    const run = await script(['--out', out, ...(databaseUrl ? ['--database-url', databaseUrl] : [])])
    const summary = summaryOf(out)
    // On a failure, the script's report names each scenario and the checks' messages.
    expect({ code: run.code, unexpected: summary.unexpected, stale: summary.stale, unknown: summary.unknown }, run.output).toEqual({
      code: 0,
      unexpected: [],
      stale: [],
      unknown: [],
    })
    expect(summary.total).toBe(32)
    // What the fixture's import gives the suite, whatever the baseline: its tools' names resolve and their results pass through.
    for (const name of ['server-initialize', 'tools-list', 'tools-call-simple-text', 'tools-call-image', 'json-schema-2020-12', 'dns-rebinding-protection']) {
      expect(summary.scenarios.find((s) => s.name === name)?.passed, name).toBe(true)
    }
  })

  it('fails on a baseline entry that passes, on an unexplained entry, and on a failure the baseline lacks, naming each', async ({ skip }) => {
    await installed(skip)
    const dir = tempDir('skillplane-conformance-baseline-')
    const stale = join(dir, 'stale.yaml')
    writeFileSync(stale, 'server:\n  # said to fail\n  - tools-call-simple-text\n')
    const staleRun = await script(['--scenario', 'tools-call-simple-text', '--baseline', stale, '--out', join(dir, 'stale')])
    expect(staleRun.code, staleRun.output).toBe(1)
    expect(staleRun.output).toContain(`the baseline is stale: these pass now, remove them from ${stale}: tools-call-simple-text`)

    // The fixture's simple_text tool broken (an empty result): the scenario fails, and the baseline doesn't say it would.
    const broken = join(dir, 'broken.yaml')
    writeFileSync(broken, 'server: []\n')
    const brokenRun = await script(['--scenario', 'tools-call-simple-text', '--baseline', broken, '--out', join(dir, 'broken')], {
      CONFORMANCE_FIXTURE_FAULT: 'simple_text',
    })
    expect(brokenRun.code, brokenRun.output).toBe(1)
    expect(brokenRun.output).toContain(`unexpected failures (not in ${broken}): tools-call-simple-text`)
    expect(brokenRun.output).toContain('FAILURE tools-call-simple-text: content array is empty')

    const unexplained = join(dir, 'unexplained.yaml')
    writeFileSync(unexplained, 'server:\n  - ping\n')
    const unexplainedRun = await script(['--scenario', 'ping', '--baseline', unexplained, '--out', join(dir, 'unexplained')])
    expect(unexplainedRun.code).toBe(1)
    expect(unexplainedRun.output).toContain(`${unexplained}: every entry needs a comment line above it saying why it fails; these have none: ping`)
  })
})
