import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases, waitFor } from '../test-support/databases.js'
import { openDatabase } from '../store/open-database.js'
import { admin, agentCaller, approvalIdOf, operator, silentLogger, testSkills, viewer } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/define-config.js'
import { MemoryError } from './memory-error.js'

const helper = agentCaller('helper')

// Two skills sharing state through ctx.memory, as two skills of one organisation would.
const rememberCity = defineSkill({
  key: 'remember_city',
  description: 'Stores the city in shared memory',
  class: 'safe',
  input: z.object({ city: z.string(), ttlSeconds: z.number().optional() }),
  run: ({ city, ttlSeconds }, ctx) => ctx.memory.set('city', { name: city }, { pool: 'travel', ...(ttlSeconds !== undefined && { ttlSeconds }) }),
})
const recallCity = defineSkill({
  key: 'recall_city',
  description: 'Reads the city another skill stored',
  class: 'safe',
  run: async (_input, ctx) => ({ city: (await ctx.memory.get('city', { pool: 'travel' })) ?? null }),
})
// Stores what a service answered, which quotes its token, in memory and as a learning.
const keepAnswer = defineSkill({
  key: 'keep_answer',
  description: 'Keeps a service answer that echoes the token',
  class: 'safe',
  secrets: ['SERVICE_TOKEN'],
  run: async (_input, ctx) => {
    const answer = `401: bad token ${ctx.secrets.get('SERVICE_TOKEN')}`
    await ctx.memory.set('last_answer', { answer })
    return ctx.learn({ category: 'discovery', title: 'The service rejects tokens', content: answer, tags: [ctx.secrets.get('SERVICE_TOKEN')] })
  },
})
const hugeMemory = defineSkill({
  key: 'huge_memory',
  description: 'Stores too much',
  class: 'safe',
  run: (_input, ctx) => ctx.memory.set('big', 'x'.repeat(500)),
})

describe.each(databases)('shared memory on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  let time = Date.parse('2026-03-01T12:00:00.000Z')
  const advance = (seconds: number) => (time += seconds * 1000)
  const open = async (config: SkillplaneConfig = {}, location?: { dataDir: string; databaseUrl?: string }) => {
    const plane = await createSkillplane({
      config: {
        skills: [...testSkills(), rememberCity, recallCity, hugeMemory, keepAnswer],
        agents: [
          { name: 'Helper', aliases: ['helper'], skills: ['memory_get', 'memory_set', 'memory_delete'] },
          { name: 'Other', aliases: [] },
        ],
        ...config,
      },
      ...(location ?? (await database.create())),
      logger: silentLogger(),
      sync: true,
      clock: () => new Date(time),
    })
    planes.push(plane)
    return plane
  }

  it('lets an entry vanish for every read once its TTL passes, and the sweep deletes it', async () => {
    const plane = await open()
    await plane.values.memory.set('session', { step: 1 }, { ttlSeconds: 60 })
    await plane.values.memory.set('forever', [1, 2, 3])
    advance(59)
    expect(await plane.values.memory.get('session')).toEqual({ step: 1 })
    expect((await plane.values.memory.list()).map((e) => e.key)).toEqual(['forever', 'session'])
    advance(2)
    expect(await plane.values.memory.get('session')).toBeUndefined()
    expect((await plane.values.memory.list()).map((e) => e.key)).toEqual(['forever'])
    expect(await plane.values.memory.delete('session')).toBe(false)
    // Still stored until swept: the sweep removes exactly the expired entry.
    await plane.values.memory.set('short', 1, { ttlSeconds: 1 })
    advance(5)
    expect(await plane.values.memory.sweep()).toBe(1)
    expect(await plane.values.memory.sweep()).toBe(0)
    expect(await plane.values.memory.get('forever')).toEqual([1, 2, 3])
    // Setting again renews the TTL (or drops it).
    await plane.values.memory.set('forever', 'now brief', { ttlSeconds: 10 })
    const [entry] = await plane.values.memory.list('for')
    expect(entry).toMatchObject({ key: 'forever', bytes: 11, expiresAt: new Date(time + 10_000).toISOString(), updatedBy: 'library' })
  })

  it('sweeps expired entries from the database on the heartbeat', async () => {
    const location = await database.create()
    const plane = await open({}, location)
    await plane.values.memory.set('brief', 'gone soon', { ttlSeconds: 1 })
    await plane.values.memory.set('kept', 'stays')
    advance(2)
    const store = await openDatabase(location)
    try {
      const stored = async () => (await store.db.selectFrom('memory_entries').select('key').orderBy('key').execute()).map((r) => r.key)
      expect(await stored()).toEqual(['brief', 'kept'])
      await waitFor(async () => (await stored()).length === 1, 15_000)
      expect(await stored()).toEqual(['kept'])
    } finally {
      await store.close()
    }
  }, 20_000)

  it('keeps pools apart and lists keys by prefix, case-sensitively', async () => {
    const plane = await open()
    await plane.values.memory.set('k', 'default value')
    await plane.values.memory.set('k', 'team value', { pool: 'team-a' })
    await plane.values.memory.set('K2', 1, { pool: 'team-a' })
    await plane.values.memory.set('k3', null, { pool: 'team-a' })
    expect(await plane.values.memory.get('k')).toBe('default value')
    expect(await plane.values.memory.get('k', { pool: 'team-a' })).toBe('team value')
    expect(await plane.values.memory.get('k3', { pool: 'team-a' })).toBeNull()
    expect(await plane.values.memory.get('k', { pool: 'team-b' })).toBeUndefined()
    expect((await plane.values.memory.list('k', { pool: 'team-a' })).map((e) => e.key)).toEqual(['k', 'k3'])
    expect((await plane.values.memory.list('', { pool: 'team-a', limit: 2 })).map((e) => e.key)).toEqual(['K2', 'k'])
    // A prefix is counted in characters on both databases, astral ones included.
    await plane.values.memory.set('🚀launch', 1, { pool: 'team-a' })
    expect((await plane.values.memory.list('🚀', { pool: 'team-a' })).map((e) => e.key)).toEqual(['🚀launch'])
    expect(await plane.values.memory.delete('k', { pool: 'team-a' })).toBe(true)
    expect(await plane.values.memory.get('k')).toBe('default value')
  })

  it('keeps a call’s secrets out of what it stores in memory and learns', async () => {
    const plane = await open()
    await plane.values.secrets.set('SERVICE_TOKEN', 'svc-token-0123456789')
    expect(await plane.invoke('keep_answer', {}, { caller: admin })).toMatchObject({ ok: true })
    expect(await plane.values.memory.get('last_answer')).toEqual({ answer: '401: bad token [REDACTED]' })
    const [learning] = await plane.values.learnings.list()
    expect(learning).toMatchObject({ content: '401: bad token [REDACTED]', tags: ['[REDACTED]'] })
    const read = await plane.invoke('memory_get', { key: 'last_answer' }, { caller: viewer })
    expect(read).toMatchObject({ ok: true })
    expect(JSON.stringify(read)).not.toContain('svc-token')
  })

  it('caps the pools holding entries, so the whole memory is bounded', async () => {
    const plane = await open({ memory: { maxPools: 2 } })
    await plane.values.memory.set('k', 1, { pool: 'one' })
    await plane.values.memory.set('k', 2, { pool: 'two', ttlSeconds: 5 })
    await expect(plane.values.memory.set('k', 3, { pool: 'three' })).rejects.toThrow('memory already holds 2 pools (memory.maxPools)')
    // Pools in use still take entries; a pool whose entries all expired frees its place.
    await plane.values.memory.set('more', 1, { pool: 'one' })
    advance(6)
    await plane.values.memory.set('k', 3, { pool: 'three' })
    expect(await plane.values.memory.get('k', { pool: 'three' })).toBe(3)
  })

  it('caps value sizes and entries per pool, with errors naming the cap', async () => {
    const plane = await open({ memory: { maxValueBytes: 100, maxEntriesPerPool: 3 } })
    await expect(plane.values.memory.set('big', 'x'.repeat(200))).rejects.toThrow(/"big" is 202 bytes of JSON; the most is 100 \(memory.maxValueBytes\)/)
    await plane.values.memory.set('a', 1)
    await plane.values.memory.set('b', 2)
    await plane.values.memory.set('c', 3, { ttlSeconds: 5 })
    await expect(plane.values.memory.set('d', 4)).rejects.toThrow(/memory pool "default" is full \(3 entries/)
    // Replacing a key adds no entry, another pool has its own room, and an expired entry frees its place.
    await plane.values.memory.set('a', 'replaced')
    await plane.values.memory.set('d', 4, { pool: 'other' })
    advance(6)
    await plane.values.memory.set('d', 4)
    expect((await plane.values.memory.list()).map((e) => e.key)).toEqual(['a', 'b', 'd'])
    // A skill hitting a cap fails with the same message.
    const huge = await plane.invoke('huge_memory', {}, { caller: admin })
    expect(huge).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringMatching(/the most is 100/) } })
  })

  it('refuses bad keys, pools, values and TTLs, naming what is wrong', async () => {
    const plane = await open()
    const bad: Array<[Promise<unknown>, RegExp]> = [
      [plane.values.memory.set('', 1), /non-empty string/],
      [plane.values.memory.set('k'.repeat(257), 1), /257 characters; the most is 256/],
      [plane.values.memory.set('line\nbreak', 1), /control characters/],
      [plane.values.memory.get(42 as unknown as string), /non-empty string; got 42/],
      [plane.values.memory.set('k', undefined), /not JSON \(undefined\)/],
      [plane.values.memory.set('k', () => 1), /not JSON \(function\)/],
      [plane.values.memory.set('k', { n: 10n }), /not JSON: .*BigInt/],
      [plane.values.memory.set('k', 1, { pool: 'Team A' }), /memory pool "Team A" is not valid/],
      [plane.values.memory.set('k', 1, { ttlSeconds: 0 }), /ttlSeconds must be a whole number of seconds from 1 to 31536000/],
      [plane.values.memory.set('k', 1, { ttlSeconds: 1.5 }), /got 1.5/],
      [plane.values.memory.set('k', 1, { ttlSeconds: 400 * 86_400 }), /a year/],
      [plane.values.memory.list('p', { limit: 0 }), /limit must be from 1 to 1000/],
    ]
    for (const [attempt, message] of bad) {
      const error = await attempt.then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(MemoryError)
      expect((error as Error).message).toMatch(message)
    }
    expect(await plane.values.memory.list()).toEqual([])
  })

  it('is shared by every skill and run of the store: ctx.memory writes are recorded with the caller', async () => {
    const plane = await open()
    expect(await plane.invoke('remember_city', { city: 'Lyon', ttlSeconds: 30 }, { caller: operator })).toMatchObject({
      ok: true,
      data: { key: 'city', pool: 'travel', bytes: 15 },
    })
    expect(await plane.invoke('recall_city', {}, { caller: viewer })).toMatchObject({ ok: true, data: { city: { name: 'Lyon' } } })
    expect(await plane.values.memory.list('', { pool: 'travel' })).toEqual([
      expect.objectContaining({ key: 'city', updatedBy: 'oscar', expiresAt: new Date(time + 30_000).toISOString() }),
    ])
    advance(31)
    expect(await plane.invoke('recall_city', {}, { caller: viewer })).toMatchObject({ ok: true, data: { city: null } })
  })

  it('offers memory_get, memory_set and memory_delete through the gate: writes by an agent wait for approval', async () => {
    const plane = await open()
    // Bound to no agent unless the agent lists them: Other has none, so for its key they don't exist.
    expect(await plane.invoke('memory_get', { key: 'x' }, { caller: agentCaller('other') })).toMatchObject({ ok: false, error: { code: 'not_found' } })

    const asked = await plane.invoke('memory_set', { key: 'plan', value: { steps: 3 }, ttlSeconds: 600 }, { caller: helper })
    const approvalId = approvalIdOf(asked)
    expect(await plane.values.memory.get('plan')).toBeUndefined()
    await plane.approvals.decide({ id: approvalId, caller: operator, decision: 'approve' })
    const ran = await plane.invoke(
      'memory_set',
      { key: 'plan', value: { steps: 3 }, ttlSeconds: 600 },
      { caller: helper, approval: { mode: 'use', approvalId } },
    )
    expect(ran).toMatchObject({ ok: true, data: { key: 'plan', pool: 'default', expiresAt: new Date(time + 600_000).toISOString() } })
    expect(await plane.audit.get(ran.callId)).toMatchObject({ skill: 'memory_set', status: 'ok', approvalId })

    // Reading is safe: the agent reads at once, and a viewer may too; a viewer may not write.
    expect(await plane.invoke('memory_get', { key: 'plan' }, { caller: helper })).toMatchObject({ ok: true, data: { found: true, value: { steps: 3 } } })
    expect(await plane.invoke('memory_get', { key: 'nothing' }, { caller: viewer })).toMatchObject({ ok: true, data: { found: false } })
    expect(await plane.invoke('memory_set', { key: 'x', value: 1 }, { caller: viewer })).toMatchObject({ ok: false, error: { code: 'denied' } })

    // People with the role run mutating skills directly; the memory records who wrote.
    expect(await plane.invoke('memory_set', { key: 'note', value: 'hi', pool: 'ops' }, { caller: operator })).toMatchObject({ ok: true })
    expect(await plane.values.memory.list('', { pool: 'ops' })).toEqual([expect.objectContaining({ key: 'note', updatedBy: 'oscar' })])
    expect(approvalIdOf(await plane.invoke('memory_delete', { key: 'plan' }, { caller: helper }))).toBeTruthy()
    expect(await plane.invoke('memory_delete', { key: 'plan' }, { caller: admin })).toMatchObject({ ok: true, data: { deleted: true } })
    expect(await plane.invoke('memory_delete', { key: 'plan' }, { caller: admin })).toMatchObject({ ok: true, data: { deleted: false } })
  })

  it('answers invalid_input for bad memory skill input, from the schema or the store', async () => {
    const plane = await open({ memory: { maxValueBytes: 50, maxEntriesPerPool: 10 } })
    const badPool = await plane.invoke('memory_get', { key: 'k', pool: 'Bad Pool' }, { caller: admin })
    expect(badPool).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/pool/) } })
    expect(await plane.invoke('memory_set', { key: 'k' }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/value/) },
    })
    expect(await plane.invoke('memory_set', { key: 'k', value: 1, ttlSeconds: 0 }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/ttlSeconds/) },
    })
    expect(await plane.invoke('memory_set', { key: 'k', value: 'y'.repeat(60) }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/62 bytes of JSON; the most is 50/) },
    })
    expect(await plane.invoke('memory_get', { key: 'tab\there' }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/control characters/) },
    })
  })
})

describe.runIf(databases.some((d) => d.name === 'postgres'))('shared memory with two managers on PostgreSQL', () => {
  const postgres = databases.find((d) => d.name === 'postgres')!
  it('holds the per-pool cap when both fill one pool at once, and each sees the other’s entries', async () => {
    // One data dir for both: managers sharing a database share its keys.
    const location = await postgres.create()
    const open = () => createSkillplane({ config: { memory: { maxValueBytes: 1_000, maxEntriesPerPool: 5 } }, ...location, logger: silentLogger() })
    const [a, b] = [await open(), await open()]
    try {
      const writes = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).values.memory.set(`k${String(i).padStart(2, '0')}`, i))
      const settled = await Promise.allSettled(writes)
      expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(5)
      for (const r of settled) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/memory pool "default" is full \(5 entries/)
      expect(await a.values.memory.list()).toHaveLength(5)
      expect(await b.values.memory.list()).toEqual(await a.values.memory.list())
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
