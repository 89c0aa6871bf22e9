import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDir } from '../../src/test-support/databases.js'
import { examplesIn, OutputMatcher } from './doc-examples.js'
import { Shell } from './shell.js'

const ROOT = join(import.meta.dirname, '../..')
const README = join(ROOT, 'README.md')

// The README's sections of commands with their outputs that run offline against `npm start`'s server.
// Other sections are not run yet: they use transcripts ("$ command" lines), wait for a person
// ("meanwhile: approve it"), or write files into the checkout.
const SECTIONS = ['A session with curl']

describe('the README, run as written', () => {
  let server: ChildProcess | undefined
  const shells: Shell[] = []
  afterAll(() => {
    server?.kill('SIGKILL')
    for (const shell of shells) shell.close()
  })

  it('gives the documented output for every example of its curl session', async () => {
    // What `npm start` runs, on a fresh data dir and a free port; `npm run cli` commands use the same data dir.
    const dataDir = tempDir('skillplane-readme-')
    server = spawn(
      process.execPath,
      [join(ROOT, 'dist/surfaces/cli/main.js'), 'serve', '--config', 'examples/skillplane.config.ts', '--data-dir', dataDir, '--port', '0'],
      {
        cwd: ROOT,
        env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn', OPENAI_API_KEY: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      server!.stdout!.on('data', (chunk) => {
        out += chunk
        const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
        const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1]
        if (url && key) resolve({ url, key })
      })
      server!.on('exit', () => reject(new Error(`serve exited: ${out}`)))
    })

    const matcher = new OutputMatcher()
    const shell = new Shell(ROOT, { SP: url, AUTH: `Authorization: Bearer ${key}`, SKILLPLANE_DATA_DIR: dataDir, SKILLPLANE_LOG_LEVEL: 'warn' })
    shells.push(shell)
    const problems: string[] = []
    let compared = 0
    for (const section of SECTIONS) {
      const examples = examplesIn(README, section)
      expect(examples.length, `examples in "${section}"`).toBeGreaterThan(5)
      for (const example of examples) {
        if (example.skip) continue
        // The reader's own exports stand for this server's address and key; the rest runs as written, in one shell.
        const script = matcher.command(example.command.replace(/^export (SP|AUTH)=.*$/gm, ''))
        const run = await shell.run(script)
        if (run.code !== 0) {
          problems.push(`README.md:${example.line}: exit ${run.code}: ${run.stderr.replace(/^npm warn .*\n/gim, '')}`)
          continue
        }
        if (example.output === null) continue
        const problem = matcher.compare(example.output, run.stdout)
        if (problem) problems.push(`README.md:${example.line}: ${problem}`)
        compared++
      }
    }
    expect(problems).toEqual([])
    expect(compared).toBeGreaterThan(5)
  })
})
