import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../src/test-support/databases.js'
import { examplesIn, OutputMatcher } from './doc-examples.js'
import { Shell } from './shell.js'

const ROOT = join(import.meta.dirname, '../..')
const README = join(ROOT, 'README.md')

// The README's sections whose commands run offline against `npm start`'s server, each group from a
// fresh start as the README shows it (the instruction skills go on with the Approvals section's
// agent key). Not run yet: "Quick start" and "Using skillplane from another project" (they
// install), "Agents" (a real model's API key), "Connecting MCP clients" (a script the reader saves
// first), "PostgreSQL" (a server of the reader's).
const SESSIONS = [['A session with curl'], ['Approvals', 'Instruction skills (SKILL.md)'], ['Skill packs'], ['MCP servers']]

describe('the README, run as written', () => {
  const servers: ChildProcess[] = []
  const shells: Shell[] = []
  afterAll(() => {
    for (const server of servers) server.kill('SIGKILL')
    for (const shell of shells) shell.close()
  })

  /** What `npm start` runs, on a fresh data dir and a free port; `npm run cli` commands use the same data dir. */
  async function start(): Promise<{ url: string; key: string; dataDir: string }> {
    const dataDir = tempDir('skillplane-readme-')
    const server = spawn(
      process.execPath,
      [join(ROOT, 'dist/surfaces/cli/main.js'), 'serve', '--config', 'examples/skillplane.config.ts', '--data-dir', dataDir, '--port', '0'],
      {
        cwd: ROOT,
        env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn', OPENAI_API_KEY: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    servers.push(server)
    let out = ''
    return new Promise((resolve, reject) => {
      server.stdout!.on('data', (chunk) => {
        out += chunk
        const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
        const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1]
        if (url && key) resolve({ url, key, dataDir })
      })
      server.on('exit', () => reject(new Error(`serve exited: ${out}`)))
    })
  }

  it('gives the documented output for every example it can run', { timeout: 240_000 }, async () => {
    const problems: string[] = []
    let compared = 0
    let skipped = 0
    for (const sections of SESSIONS) {
      const examples = sections.flatMap((section) => examplesIn(README, section))
      expect(examples.length, `examples in ${sections.join(', ')}`).toBeGreaterThan(0)
      const { url, key, dataDir } = await start()
      const shell = new Shell(ROOT, { SP: url, AUTH: `Authorization: Bearer ${key}`, SKILLPLANE_DATA_DIR: dataDir, SKILLPLANE_LOG_LEVEL: 'warn' })
      shells.push(shell)
      const matcher = new OutputMatcher()
      // Files the examples write under /tmp go to this run's own folder.
      const scratch = tempDir('skillplane-readme-tmp-')
      // What differs by machine: where the checkout is and which node runs it.
      const asDocumented = (text: string) =>
        text.replaceAll(`${scratch}/`, '/tmp/').replaceAll(ROOT, '/path/to/skillplane').replaceAll(process.execPath, '/usr/bin/node')
      for (const example of examples) {
        if (example.skip) {
          skipped++
          continue
        }
        // The reader's own exports stand for this server's address and key; the rest runs as written, in one shell.
        const script = matcher.command(example.command.replace(/^export (SP|AUTH)=.*$/gm, '')).replaceAll('/tmp/', `${scratch}/`)
        const run = await shell.run(script)
        const stderr = run.stderr.replace(/^npm warn .*\n/gim, '')
        if (example.output === null) {
          if (run.code !== 0) problems.push(`README.md:${example.line}: exit ${run.code}: ${stderr}`)
          continue
        }
        // A failing command documents its failure; a transcript shows what the terminal shows.
        const problem = matcher.compare(example.output, asDocumented(example.transcript ? run.stdout + stderr : run.stdout))
        if (problem) problems.push(`README.md:${example.line}: ${problem}${run.code !== 0 ? `\n(exit ${run.code}: ${stderr})` : ''}`)
        compared++
      }
    }
    expect(problems).toEqual([])
    // Skipping must stay the exception: each skip is marked in the README with its reason.
    expect(compared).toBeGreaterThan(35)
    expect(skipped).toBeLessThan(4)
  })
})
