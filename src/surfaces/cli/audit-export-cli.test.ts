import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin, silentLogger, testSkills } from '../../test-support/fixtures.js'
import { createSkillplane } from '../../agents/index.js'
import { CLI_MAIN, CLI_TEST_CONFIG, runCli } from '../../test-support/run-cli.js'
import type { AuditEntry } from '../../audit/index.js'

const cli = (location: { dataDir: string; databaseUrl?: string }, args: string[]) => runCli(location, args)

const lines = (text: string): AuditEntry[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditEntry)

describe.each(databases)('skillplane audit export on $name', (database) => {
  it('writes the calls in [--since, --until) as JSON lines, oldest first, across pages, to stdout or a new file', async () => {
    const location = await database.create()
    const plane = await createSkillplane({ config: { skills: testSkills() }, ...location, logger: silentLogger() })
    // More than one page (500 rows) of calls, spread over a few milliseconds.
    for (let i = 0; i < 1_200; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => plane.invoke('echo', { message: `m${i + j}` }, { caller: admin })))
    }
    const stored: AuditEntry[] = []
    for await (const page of plane.audit.pages({})) stored.push(...page)
    await plane.close()
    expect(stored).toHaveLength(1_200)

    const everything = cli(location, ['audit', 'export'])
    expect(everything).toMatchObject({ code: 0, stderr: '' })
    expect(lines(everything.stdout)).toEqual(stored)

    const since = stored[300]!.startedAt
    const until = stored[1_000]!.startedAt
    expect(since < until).toBe(true)
    const range = cli(location, ['audit', 'export', '--since', since, '--until', until])
    expect(range.code).toBe(0)
    const expected = stored.filter((e) => e.startedAt >= since && e.startedAt < until)
    expect(expected.length).toBeGreaterThan(500)
    expect(lines(range.stdout)).toEqual(expected)

    const out = join(tempDir(), 'calls.jsonl')
    const toFile = cli(location, ['audit', 'export', '--since', since.slice(0, 10), '--out', out])
    expect(toFile).toMatchObject({ code: 0, stdout: '', stderr: `exported 1200 calls to ${out}\n` })
    expect(lines(readFileSync(out, 'utf8'))).toEqual(stored)
    // A reader that stops early (`| head`) ends the export quietly.
    const child = spawn(
      process.execPath,
      [
        CLI_MAIN,
        '--data-dir',
        location.dataDir,
        '--config',
        CLI_TEST_CONFIG,
        ...(location.databaseUrl ? ['--database-url', location.databaseUrl] : []),
        'audit',
        'export',
      ],
      {
        env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' },
      },
    )
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdout.once('data', () => child.stdout.destroy())
    const [code] = (await once(child, 'exit')) as [number | null]
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    // Nothing in range: empty output, not an error.
    expect(cli(location, ['audit', 'export', '--since', '2001-01-01', '--until', '2001-01-02'])).toMatchObject({ code: 0, stdout: '' })
    // CSV: the header, then the same calls in the same order.
    const csv = cli(location, ['audit', 'export', '--format', 'csv', '--since', since, '--until', until])
    expect(csv.code).toBe(0)
    const [header, ...records] = csv.stdout.split('\r\n')
    expect(header).toMatch(/^callId,startedAt,finishedAt,durationMs,status,skill,/)
    expect(records.pop()).toBe('')
    expect(records.map((r) => r.split(',')[0])).toEqual(expected.map((e) => e.callId))
  })

  it('names what is wrong with bad dates, an empty range and an existing --out file', async () => {
    const location = await database.create()
    const plane = await createSkillplane({ config: { skills: testSkills() }, ...location, logger: silentLogger() })
    await plane.close()
    expect(cli(location, ['audit', 'export', '--since', 'yesterday'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'skillplane: --since: must be an ISO-8601 date or date-time (like 2026-01-31 or 2026-01-31T12:00:00Z), not "yesterday"\n',
    })
    expect(cli(location, ['audit', 'export', '--format', 'xml'])).toMatchObject({ code: 1, stderr: 'skillplane: --format: must be jsonl or csv, not "xml"\n' })
    expect(cli(location, ['audit', '--search', '!'])).toMatchObject({
      code: 1,
      stderr: 'skillplane: invalid audit filter: q: must contain a letter or digit\n',
    })
    expect(cli(location, ['audit', 'export', '--until', '2026-02-30T25:00'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^skillplane: --until: must be/),
    })
    expect(cli(location, ['audit', 'export', '--since', '2026-03-01', '--until', '2026-02-01'])).toMatchObject({
      code: 1,
      stderr: 'skillplane: --since (2026-03-01T00:00:00.000Z) must be before --until (2026-02-01T00:00:00.000Z)\n',
    })
    const existing = join(tempDir(), 'kept.jsonl')
    writeFileSync(existing, 'an earlier export\n')
    expect(cli(location, ['audit', 'export', '--out', existing])).toMatchObject({
      code: 1,
      stderr: `skillplane: --out ${existing} already exists: choose a new file\n`,
    })
    expect(readFileSync(existing, 'utf8')).toBe('an earlier export\n')
  })
})
