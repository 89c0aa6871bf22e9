import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { databases, tempDir, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, silentLogger, testAgents, testSkills } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/define-config.js'
import type { AuditEntry } from './audit-entry.js'
import { openDatabase } from '../store/index.js'

const DAY = 24 * 60 * 60 * 1000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// A call that stays running until the test lets it finish.
let release: () => void = () => {}
const hold = defineSkill({
  key: 'hold',
  description: 'Waits until released',
  class: 'safe',
  run: () => new Promise((resolve) => (release = () => resolve({ held: true }))),
})

async function calls(plane: Skillplane, count: number): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    const envelopes = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, (_, j) => plane.invoke('echo', { message: `m${i + j}` }, { caller: admin })),
    )
    expect(envelopes.every((e) => e.ok)).toBe(true)
  }
}

async function all(plane: Skillplane): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = []
  for await (const page of plane.audit.pages({})) entries.push(...page)
  return entries
}

async function events(plane: Skillplane, kind: string) {
  return (await plane.audit.events.list({ kind, limit: 50 })).items
}

describe.each(databases)('audit retention on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    release()
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  let time = Date.now()
  const open = async (audit: SkillplaneConfig['audit'], location?: { dataDir: string; databaseUrl?: string }) => {
    const plane = await createSkillplane({
      config: { skills: [...testSkills(), hold], agents: testAgents, audit },
      ...(location ?? (await database.create())),
      logger: silentLogger(),
      sync: true,
      clock: () => new Date(time),
    })
    planes.push(plane)
    return plane
  }

  it('deletes calls started before the retention period across batches, keeping newer ones, running ones and those a live approval names', async () => {
    time = Date.now()
    const plane = await open({ retentionDays: 1 })
    await calls(plane, 2_150)
    const running = plane.invoke('hold', {}, { caller: admin })
    await waitFor(async () => (await plane.audit.query({ status: 'running', limit: 5 })).items.length === 1)
    const asked = await plane.invoke('write_thing', { value: 'v' }, { caller: agentCaller('helper') })
    const approvalId = approvalIdOf(asked)
    await sleep(5)
    const boundary = Date.now()
    await sleep(5)
    await calls(plane, 3)
    const before = await all(plane)
    expect(before).toHaveLength(2_155)

    // A day and a bit after the boundary: everything before it is out of retention.
    time = boundary + DAY
    const report = await plane.audit.sweep()
    expect(report).toEqual({ cutoff: new Date(boundary).toISOString(), deleted: 2_150, exported: 0, file: null, error: null })
    const after = await all(plane)
    expect(after.map((e) => e.skill).sort()).toEqual(['echo', 'echo', 'echo', 'hold', 'write_thing'])
    expect(after.find((e) => e.skill === 'write_thing')).toMatchObject({ status: 'approval_required', approvalId })
    expect(after.filter((e) => e.skill === 'echo').every((e) => Date.parse(e.startedAt) >= boundary)).toBe(true)
    // Once it finishes, the held call is old and finished: the next sweep takes it.
    release()
    expect(await running).toMatchObject({ ok: true })
    expect((await plane.audit.sweep()).deleted).toBe(1)
    expect((await all(plane)).map((e) => e.skill).sort()).toEqual(['echo', 'echo', 'echo', 'write_thing'])

    const sweeps = await events(plane, 'audit.sweep')
    expect(sweeps.map((e) => e.details)).toEqual([
      expect.objectContaining({ deleted: 1, retentionDays: 1, maxRows: null }),
      expect.objectContaining({ deleted: 2_150, cutoff: new Date(boundary).toISOString(), exported: 0, file: null, error: null }),
    ])
  })

  it('caps the table at maxRows, deleting the oldest calls first', async () => {
    const plane = await open({ maxRows: 7 })
    await calls(plane, 12)
    const before = await all(plane)
    const report = await plane.audit.sweep()
    expect(report).toMatchObject({ cutoff: null, deleted: 5 })
    expect((await all(plane)).map((e) => e.callId)).toEqual(before.slice(5).map((e) => e.callId))
    expect((await plane.audit.sweep()).deleted).toBe(0)
  })

  it('exports the rows it deletes as JSON lines, fsynced in a file per sweep, equal to what GET /api/audit showed', async () => {
    time = Date.now()
    const exportDir = tempDir('skillplane-export-')
    const plane = await open({ retentionDays: 30, maxRows: 5, exportDir })
    await calls(plane, 8)
    const before = await all(plane)
    const running = plane.invoke('hold', {}, { caller: admin })
    await waitFor(async () => (await plane.audit.query({ status: 'running', limit: 5 })).items.length === 1)
    // Nothing is 30 days old yet: only the cap applies, and the running call counts toward it but stays.
    const report = await plane.audit.sweep()
    expect(report).toMatchObject({ cutoff: new Date(time - 30 * DAY).toISOString(), deleted: 4, exported: 4, error: null })
    expect(readdirSync(exportDir)).toEqual([report.file!.slice(exportDir.length + 1)])
    const lines = readFileSync(report.file!, 'utf8').trimEnd().split('\n')
    expect(lines.map((l) => JSON.parse(l))).toEqual(before.slice(0, 4))
    // Past retention: the rest goes, the running call stays, into a second file.
    time += 31 * DAY
    const second = await plane.audit.sweep()
    expect(second).toMatchObject({ deleted: 4, exported: 4 })
    expect(second.file).not.toBe(report.file)
    expect(
      readFileSync(second.file!, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(before.slice(4))
    expect((await all(plane)).map((e) => e.status)).toEqual(['running'])
    release()
    await running
    // A sweep with nothing to delete leaves no file.
    time -= 40 * DAY
    expect(await plane.audit.sweep()).toMatchObject({ deleted: 0, exported: 0, file: null })
    expect(readdirSync(exportDir)).toHaveLength(2)
    // Two sweeps at the same moment: the second file never replaces the first.
    await calls(plane, 6)
    const third = await plane.audit.sweep()
    await calls(plane, 2)
    const fourth = await plane.audit.sweep()
    expect([third.exported, fourth.exported]).toEqual([2, 2])
    expect(fourth.file).toBe(third.file!.replace(/\.jsonl$/, '-2.jsonl'))
    expect(readdirSync(exportDir)).toHaveLength(4)
    expect(readFileSync(third.file!, 'utf8').trimEnd().split('\n')).toHaveLength(2)
  })

  it('deletes nothing when the export fails, and audits the failed sweep', async () => {
    time = Date.now()
    // Not a folder (chmod won't do: the tests may run as root).
    const notADir = join(tempDir('skillplane-export-'), 'a-file')
    writeFileSync(notADir, '')
    const plane = await open({ retentionDays: 1, exportDir: notADir })
    await calls(plane, 3)
    time += 2 * DAY
    const report = await plane.audit.sweep()
    expect(report).toMatchObject({ deleted: 0, exported: 0, file: null })
    expect(report.error).toMatch(new RegExp(`^exporting to ${notADir}/audit-.*\\.jsonl failed, so nothing was deleted: ENOTDIR`))
    expect(await all(plane)).toHaveLength(3)
    expect((await events(plane, 'audit.sweep'))[0]!.details).toMatchObject({ deleted: 0, error: report.error })

    const missing = await open({ retentionDays: 1, exportDir: join(notADir, '..', 'not-there') })
    await calls(missing, 1)
    time += 2 * DAY
    expect((await missing.audit.sweep()).error).toMatch(/failed, so nothing was deleted: ENOENT/)
    expect(await all(missing)).toHaveLength(1)
  })

  it('records the policy once when it changes, and sweeps daily only when retention is configured', async () => {
    const location = await database.create()
    const plain = await open({}, location)
    expect(await events(plain, 'audit.retention')).toEqual([])
    expect(await plain.audit.dailySweep()).toBeNull()
    await plain.close()
    const kept = await open({ retentionDays: 90 }, location)
    await kept.close()
    // The same policy again is no change.
    const same = await open({ retentionDays: 90 }, location)
    await same.close()
    const capped = await open({ retentionDays: 30, maxRows: 1_000_000 }, location)
    expect((await events(capped, 'audit.retention')).map((e) => e.details)).toEqual([
      expect.objectContaining({ retentionDays: 30, maxRows: 1_000_000, exportDir: null, previous: { retentionDays: 90, maxRows: null, exportDir: null } }),
      expect.objectContaining({ retentionDays: 90, maxRows: null, exportDir: null, previous: { retentionDays: null, maxRows: null, exportDir: null } }),
    ])
    time = Date.now()
    expect(await capped.audit.dailySweep()).toMatchObject({ deleted: 0 })
    expect(await capped.audit.dailySweep()).toBeNull()
    time += DAY
    expect(await capped.audit.dailySweep()).toMatchObject({ deleted: 0 })
  })

  it('keeps the health stats of calls it deletes, dropping only their minute buckets', async () => {
    time = Date.now()
    const location = await database.create()
    const plane = await open({ retentionDays: 1 }, location)
    await calls(plane, 5)
    await plane.invoke('explode', {}, { caller: admin })
    const week = () => plane.audit.health.table({ dim: 'skill', window: '7d', sort: 'calls', order: 'desc', limit: 10 })
    expect((await week()).items.map((r) => [r.value, r.calls, r.failed])).toEqual([
      ['echo', 5, 0],
      ['explode', 1, 1],
    ])
    time += 3 * DAY
    expect(await plane.audit.dailySweep()).toMatchObject({ deleted: 6 })
    expect(await all(plane)).toEqual([])
    // The counts are still there, by the hour and the day; the minutes went after two days.
    expect((await week()).items.map((r) => [r.value, r.calls, r.failed])).toEqual([
      ['echo', 5, 0],
      ['explode', 1, 1],
    ])
    const store = await openDatabase(location)
    try {
      const grains = await store.db.selectFrom('call_stats').select('grain').distinct().orderBy('grain').execute()
      expect(grains.map((g) => g.grain)).toEqual(['d', 'h'])
    } finally {
      await store.close()
    }
  })

  it('refuses a bad retention config by name', async () => {
    await expect(open({ retentionDays: 0 })).rejects.toThrow(/audit\.retentionDays/)
    await expect(open({ maxRows: 2.5 } as never)).rejects.toThrow(/audit\.maxRows/)
    await expect(open({ exportDir: '' })).rejects.toThrow(/audit\.exportDir/)
    await expect(open({ retentionDays: 40_000 })).rejects.toThrow(/audit\.retentionDays/)
  })

  it.runIf(database.name === 'sqlite')(
    'sweeps from the heartbeat once retention is due',
    async () => {
      time = Date.now()
      const plane = await open({ retentionDays: 1 })
      await calls(plane, 3)
      time += 2 * DAY
      // The heartbeat beats every 5 s and tries the daily sweep.
      await waitFor(async () => (await events(plane, 'audit.sweep')).length === 1, 12_000)
      expect((await events(plane, 'audit.sweep'))[0]).toMatchObject({ actor: { id: 'system' }, details: { deleted: 3 } })
      expect(await all(plane)).toEqual([])
    },
    15_000,
  )
})

describe.runIf(databases.some((d) => d.name === 'postgres'))('the daily audit sweep with two managers on PostgreSQL', () => {
  const postgres = databases.find((d) => d.name === 'postgres')!
  it('runs on exactly one manager a day', async () => {
    let time = Date.now()
    const location = await postgres.create()
    const open = () =>
      createSkillplane({ config: { skills: testSkills(), audit: { retentionDays: 1 } }, ...location, logger: silentLogger(), clock: () => new Date(time) })
    const [a, b] = [await open(), await open()]
    try {
      await calls(a, 4)
      time += 2 * DAY
      const deleted: number[] = []
      for (let day = 0; day < 3; day++) {
        const ran = await Promise.all([a.audit.dailySweep(), b.audit.dailySweep(), a.audit.dailySweep(), b.audit.dailySweep()])
        expect(ran.filter(Boolean)).toHaveLength(1)
        deleted.push(ran.find(Boolean)!.deleted)
        await calls(b, 1)
        time += DAY
      }
      expect(deleted).toEqual([4, 1, 1])
      expect((await a.audit.events.list({ kind: 'audit.sweep', limit: 10 })).items).toHaveLength(3)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
