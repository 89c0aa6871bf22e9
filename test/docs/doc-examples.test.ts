/**
 * The doc test: runs the command examples of README.md and docs/*.md and compares their output
 * with the documented one, so the docs can't drift from the code. How examples are found, run,
 * skipped (`<!-- doc-test: skip (reason) -->`) and compared: test/docs/README.md.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { extractExamples } from './extract-examples.js'
import { formatReport, ROOT, runDoc } from './run-doc.js'

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]
/** At least this many examples must run and compare in each file, so a broken extractor or a stray skip can't pass quietly. */
const MIN_COMPARED: Record<string, number> = {
  'README.md': 50,
  'docs/cli.md': 5,
  'docs/http-api.md': 2,
}
const MIN_RUN: Record<string, number> = { 'docs/packs.md': 1 }

describe('doc examples', () => {
  for (const file of docs) {
    it(
      file,
      async () => {
        const report = await runDoc(file, readFileSync(join(ROOT, file), 'utf8'))
        console.log(formatReport(report))
        expect(report.mismatches.length, formatReport(report)).toBe(0)
        expect(report.compared, `${file}: examples compared`).toBeGreaterThanOrEqual(MIN_COMPARED[file] ?? 0)
        expect(report.ranWithoutOutput, `${file}: examples run without output`).toBeGreaterThanOrEqual(MIN_RUN[file] ?? 0)
      },
      300_000,
    )
  }
})

describe('the doc test itself', () => {
  const run = (markdown: string) => runDoc('check.md', markdown, { server: false })

  it('reports a drifted output with its file, line, documented and real output', async () => {
    const report = await run('# t\n\n```sh\necho hello\n```\n```\nhullo\n```\n')
    expect(report.compared).toBe(1)
    expect(report.mismatches).toEqual([{ where: 'check.md:3', command: 'echo hello', documented: 'hullo', actual: 'hello\n' }])
    expect(formatReport(report)).toContain('MISMATCH at check.md:3')
  })

  it('binds a documented id to the real one, in later outputs and commands', async () => {
    const newId = `printf '01%s\\n' "$(head -c 4000 /dev/urandom | tr -dc '0-9A-HJKMNP-TV-Z' | head -c 24)"`
    const md = [
      '```sh',
      newId,
      '```',
      '```',
      '01M80Y01NM68YMHW4QEBH9D15H',
      '```',
      '',
      '```sh',
      'echo "id 01M80Y01NM68YMHW4QEBH9D15H"',
      '```',
      '```',
      'id 01M80Y01NM68YMHW4QEBH9D15H',
      '```',
      '',
      '```sh',
      'echo "id 01ARZ3NDEKTSV4RRFFQ69G5FAV"',
      '```',
      '```',
      'id 01M80Y01NM68YMHW4QEBH9D15H',
      '```',
      '',
    ].join('\n')
    const report = await run(md)
    expect(report.compared).toBe(3)
    // Only the third fails: another id where the doc shows the bound one.
    expect(report.mismatches.map((m) => m.where)).toEqual(['check.md:15'])
  })

  it('compares reformatted JSON, elisions, exit statuses and JSON shapes', async () => {
    const md = [
      '```sh',
      `echo '{"a":1,"b":[2,3],"c":"long text"}'`,
      '```',
      '```json',
      '{\n  "a": 1,\n  "…": "…"\n}',
      '```',
      '',
      '```sh',
      `echo 'took 12 ms: done'`,
      '```',
      '```',
      'took … done',
      '```',
      '',
      '```sh',
      'false',
      '```',
      '',
      '<!-- doc-test: shape -->',
      '```sh',
      `echo '{"n":5,"at":"x"}'`,
      '```',
      '```json',
      '{"n":1,"at":"y"}',
      '```',
      '',
      '<!-- doc-test: shape -->',
      '```sh',
      `echo '{"n":"5"}'`,
      '```',
      '```json',
      '{"n":1}',
      '```',
      '',
    ].join('\n')
    const report = await run(md)
    expect(report.compared).toBe(4)
    expect(report.ranWithoutOutput).toBe(1)
    expect(report.mismatches.map((m) => [m.where, m.documented])).toEqual([
      ['check.md:18', '(no output shown; exit status 0 expected, got 1)'],
      ['check.md:31', '{"n":1}'],
    ])
  })

  it('counts skipped examples and refuses a skip without a reason or an unknown marker', async () => {
    const report = await run('<!-- doc-test: skip (needs a model) -->\n```sh\ncurl http://example.com\n```\n')
    expect(report.skipped).toEqual([{ where: 'check.md:2', reason: 'needs a model' }])
    expect(formatReport(report)).toContain('skipped check.md:2: needs a model')
    expect(() => extractExamples('<!-- doc-test: skip -->\n```sh\nls\n```\n', 'x.md')).toThrow('x.md:1: a doc-test skip marker needs a reason')
    expect(() => extractExamples('<!-- doc-test: ignore -->\n```sh\nls\n```\n', 'x.md')).toThrow('x.md:1: unknown doc-test marker "ignore"')
  })
})
