import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { MockEmbeddingModelV3 } from 'ai/test'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, operator, silentLogger } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/index.js'
import type { Caller } from '../skill/index.js'
import { startHttpServer } from '../surfaces/http/index.js'
import { DEFAULT_RANKING } from './index.js'

const noop = () => ({ ok: true })

/** A small catalog where the right answer to each query below is known. */
function catalog() {
  return [
    defineSkill({
      key: 'detect_orphans',
      title: 'Detect orphaned volumes',
      description: 'Find storage volumes no instance uses any more, with their size and monthly cost',
      class: 'safe',
      tags: ['storage', 'cost'],
      agents: ['Fleet'],
      input: z.object({ region: z.string().describe('Cloud region to scan') }),
      related: { enhances: ['delete_volume'] },
      run: noop,
    }),
    defineSkill({
      key: 'delete_volume',
      description: 'Delete one volume for good',
      class: 'mutating',
      agents: ['Fleet'],
      input: z.object({ volumeId: z.string() }),
      run: noop,
    }),
    defineSkill({
      key: 'probe_port',
      description: 'Check whether a service answers',
      class: 'safe',
      agents: ['Fleet'],
      input: z.object({ hostname: z.string().describe('Machine to reach'), tcpPort: z.number().int() }),
      run: noop,
    }),
    defineSkill({
      key: 'rotate_logs',
      description: 'Compress and rotate application log files',
      class: 'safe',
      agents: ['Fleet'],
      input: z.object({ path: z.string() }),
      run: noop,
    }),
    defineSkill({
      key: 'billing_report',
      description: 'Monthly cost report per team',
      class: 'safe',
      input: z.object({ month: z.string() }),
      run: noop,
    }),
    defineSkill({
      key: 'fail_always',
      description: 'Reclaims wasted disk space, or would if it worked',
      class: 'safe',
      agents: ['Fleet'],
      run: () => {
        throw new Error('broken')
      },
    }),
  ]
}

describe.each(databases)('discovery on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (config: SkillplaneConfig = {}, location?: { dataDir: string; databaseUrl?: string }) => {
    const plane = await createSkillplane({
      config: { skills: catalog(), agents: [{ name: 'Fleet' }, { name: 'Idle' }], ...config },
      ...(location ?? (await database.create())),
      logger: silentLogger(),
      sync: true,
    })
    planes.push(plane)
    return plane
  }
  const discover = async (plane: Skillplane, caller: Caller, input: Record<string, unknown>, conversationId?: string) => {
    const envelope = await plane.invoke('discover_skills', input, { caller, conversationId })
    if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
    return envelope.data as { results: Array<{ key: string; why: string[]; score: number } & Record<string, unknown>>; omitted: number }
  }
  const keys = (answer: { results: Array<{ key: string }> }) => answer.results.map((r) => r.key)

  it('ranks by the words of each skill: exact keys and titles first, key words, argument names, select:', async () => {
    const plane = await open()
    expect(keys(await discover(plane, admin, { query: 'detect_orphans' }))[0]).toBe('detect_orphans')
    expect((await discover(plane, admin, { query: 'Detect orphaned volumes' })).results[0]).toMatchObject({ key: 'detect_orphans', why: ['exact key'] })
    expect(keys(await discover(plane, admin, { query: 'unused storage volumes' }))[0]).toBe('detect_orphans')
    // Argument names (camelCase split) and their descriptions are indexed too.
    const byArgs = await discover(plane, admin, { query: 'tcp port of a hostname' })
    expect(byArgs.results[0]).toMatchObject({
      key: 'probe_port',
      class: 'safe',
      needsApproval: false,
      arguments: 'hostname: string, tcpPort: integer',
      why: [expect.stringContaining('args')],
    })
    expect(keys(await discover(plane, admin, { query: 'select:rotate_logs, probe_port' }))).toEqual(['rotate_logs', 'probe_port'])
    // discover_skills never offers itself.
    expect(keys(await discover(plane, admin, { query: 'discover skills', limit: 50 }))).not.toContain('discover_skills')
  })

  it('offers only what the caller may call now: an agent never sees an unbound or denied skill, even by exact key', async () => {
    const plane = await open()
    const fleet = agentCaller('fleet')
    expect(keys(await discover(plane, fleet, { query: 'billing_report' }))).not.toContain('billing_report')
    expect(keys(await discover(plane, fleet, { query: 'select:billing_report' }))).toEqual([])
    expect(keys(await discover(plane, agentCaller('idle'), { query: 'volumes', limit: 50 }))).toEqual([])
    // An agent's mutating call waits for approval: the result says so.
    expect((await discover(plane, fleet, { query: 'delete_volume' })).results[0]).toMatchObject({ key: 'delete_volume', needsApproval: true })
    await plane.policies.set({ skill: 'delete_volume', level: 'agent', subject: 'fleet', decision: 'DENY' }, admin, plane.now())
    expect(keys(await discover(plane, fleet, { query: 'delete_volume' }))).not.toContain('delete_volume')
    // A skill the agent may not use brings none of its relations along, and names none of them.
    plane.skills.register(
      defineSkill({ key: 'secret_ledger', description: 'The secret ledger', class: 'safe', related: { composes: ['rotate_logs'] }, run: noop }),
      { source: 'code', origin: 'test' },
    )
    expect(keys(await discover(plane, admin, { query: 'secret ledger' }))).toEqual(['secret_ledger', 'rotate_logs'])
    expect(keys(await discover(plane, fleet, { query: 'secret ledger' }))).toEqual([])
    // Disabled in the catalog: gone for everyone.
    await plane.skills.edit('rotate_logs', { enabled: false }, plane.now())
    expect(keys(await discover(plane, admin, { query: 'rotate logs' }))).not.toContain('rotate_logs')
    // Admins binding skills: what Idle could use but isn't bound to; only admins may ask.
    const unbound = keys(await discover(plane, admin, { query: 'cost', agent: 'Idle', excludeBound: true, limit: 50 }))
    expect(unbound).toEqual(expect.arrayContaining(['billing_report', 'detect_orphans']))
    expect(keys(await discover(plane, admin, { query: 'cost', agent: 'Fleet', excludeBound: true, limit: 50 }))).toEqual(['billing_report'])
    expect(await plane.invoke('discover_skills', { query: 'cost', agent: 'Idle', excludeBound: true }, { caller: operator })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: 'excludeBound is for admins binding skills to agents' },
    })
    expect(await plane.invoke('discover_skills', { query: 'cost', agent: 'Nobody' }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: 'unknown agent "Nobody"' },
    })
    expect(await plane.invoke('discover_skills', { query: '' }, { caller: admin })).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
  })

  it('cuts the list to the limit and the token budget, saying how many the budget left out', async () => {
    const plane = await open()
    expect((await discover(plane, admin, { query: 'volume storage cost port logs', limit: 2 })).results).toHaveLength(2)
    const budget = await discover(plane, admin, { query: 'volume storage cost port logs', limit: 10, maxTokens: 120 })
    expect(budget.results.length).toBeGreaterThanOrEqual(1)
    expect(budget.omitted).toBeGreaterThan(0)
    expect(JSON.stringify(budget.results).length / 4).toBeLessThanOrEqual(120)
  })

  it('learns from a discovery followed by a call in the same conversation; failed calls teach nothing; evidence is stored', async () => {
    const location = await database.create()
    const plane = await open({}, location)
    const query = 'reclaim wasted disk monthly'
    const before = keys(await discover(plane, admin, { query, limit: 10 }, 'conv-1'))
    expect(before).toContain('billing_report')
    expect(before).toContain('fail_always')
    expect(before[0]).not.toBe('billing_report')
    expect((await plane.invoke('fail_always', {}, { caller: admin, conversationId: 'conv-1' })).ok).toBe(false)
    expect((await plane.invoke('billing_report', { month: '2026-11' }, { caller: admin, conversationId: 'conv-1' })).ok).toBe(true)
    const after = await discover(plane, admin, { query: 'reclaim wasted disk monthly please' })
    expect(after.results[0]).toMatchObject({
      key: 'billing_report',
      why: expect.arrayContaining([expect.stringMatching(/^asked for like this before \(.*; 1 stored request\)$/)]),
    })
    expect((after.results.find((r) => r.key === 'fail_always')?.why ?? []).join()).not.toContain('asked for like this before')
    // A call in a conversation with no discovery teaches nothing.
    await plane.invoke('rotate_logs', { path: '/var/log' }, { caller: admin, conversationId: 'conv-2' })
    expect(plane.skills.discovery.stats().examples).toBe(1)
    // The evidence outlives the process.
    await plane.close()
    const reopened = await open({}, location)
    expect((await discover(reopened, admin, { query: 'reclaim wasted disk monthly' })).results[0]).toMatchObject({ key: 'billing_report' })
  })

  it('brings a found skill’s declared relations along, after every skill the words matched', async () => {
    const plane = await open()
    const found = await discover(plane, admin, { query: 'orphaned', limit: 3 })
    expect(keys(found).slice(0, 2)).toEqual(['detect_orphans', 'delete_volume'])
    expect(found.results[1]!.why).toEqual(['related to detect_orphans (enhances)'])
    // A declared relation is at full strength: the seed's score × the relations weight.
    expect(found.results[1]!.score).toBeCloseTo(DEFAULT_RANKING.relations, 3)
  })

  it('picks up relations another manager learned, and their later counts, with the heartbeat', async () => {
    const location = await database.create()
    const here = await open({}, location)
    const elsewhere = await open({}, location)
    const learnElsewhere = async (conversations: string[]) => {
      for (const conversation of conversations) {
        await elsewhere.invoke('probe_port', { hostname: 'h', tcpPort: 1 }, { caller: admin, conversationId: conversation })
        await elsewhere.invoke('rotate_logs', { path: '/x' }, { caller: admin, conversationId: conversation })
      }
    }
    // Other sequences, so that rotate_logs after probe_port beats its base rate (a relation is learned by lift).
    for (const conversation of ['x', 'y', 'z', 'w']) {
      await elsewhere.invoke('billing_report', { month: '2026-11' }, { caller: admin, conversationId: conversation })
      await elsewhere.invoke('detect_orphans', { region: 'eu' }, { caller: admin, conversationId: conversation })
    }
    const relatedHere = async () => (await discover(here, admin, { query: 'hostname', limit: 3 })).results.find((r) => r.key === 'rotate_logs')?.why ?? []
    await learnElsewhere(['a', 'b'])
    await waitFor(async () => (await relatedHere()).includes('related to probe_port (called next 2 times)'), 15_000)
    // Counted again later: only that pair is read again, and its new count replaces the old.
    await learnElsewhere(['c'])
    await waitFor(async () => (await relatedHere()).includes('related to probe_port (called next 3 times)'), 15_000)
  }, 40_000)

  it('picks up the requests another manager learned with the heartbeat, each once, while both go on learning', async () => {
    const location = await database.create()
    const here = await open({}, location)
    const elsewhere = await open({}, location)
    const learn = async (plane: Skillplane, conversation: string, query: string) => {
      await discover(plane, admin, { query }, conversation)
      expect((await plane.invoke('billing_report', { month: '2026-11' }, { caller: admin, conversationId: conversation })).ok).toBe(true)
    }
    await learn(elsewhere, 'e-1', 'zeppelin hangar invoices')
    await learn(here, 'h-1', 'quokka expenses')
    await waitFor(async () => keys(await discover(here, admin, { query: 'zeppelin hangar' }))[0] === 'billing_report', 15_000)
    await waitFor(async () => keys(await discover(elsewhere, admin, { query: 'quokka' }))[0] === 'billing_report', 15_000)
    // Learned later, after each has read the other: still arrives, and nothing is counted twice over the heartbeats.
    await learn(elsewhere, 'e-2', 'narwhal ledger')
    await waitFor(async () => keys(await discover(here, admin, { query: 'narwhal' }))[0] === 'billing_report', 15_000)
    await waitFor(async () => here.skills.discovery.stats().examples === 3 && elsewhere.skills.discovery.stats().examples === 3, 15_000)
    expect((await discover(here, admin, { query: 'narwhal zeppelin quokka' })).results[0]!.why).toEqual(
      expect.arrayContaining([expect.stringMatching(/; 3 stored requests\)$/)]),
    )
  }, 40_000)

  it('keeps the index current: a catalog edit and a skill registered later are found without a rebuild', async () => {
    const plane = await open()
    expect(keys(await discover(plane, admin, { query: 'quarterly invoices' }))).not.toContain('billing_report')
    await plane.skills.edit('billing_report', { description: 'Quarterly invoices for every team' }, plane.now())
    expect(keys(await discover(plane, admin, { query: 'quarterly invoices' }))[0]).toBe('billing_report')
    plane.skills.register(defineSkill({ key: 'late_arrival', description: 'Joined after start', class: 'safe', run: noop }), {
      source: 'code',
      origin: 'test',
    })
    expect(keys(await discover(plane, admin, { query: 'joined after start' }))[0]).toBe('late_arrival')
  })

  it('re-reads the skills whose catalog rows changed, edited here or by another manager: title, description, tags, prompt', async () => {
    const location = await database.create()
    const here = await open({}, location)
    const elsewhere = await open({}, location)
    expect(keys(await discover(here, admin, { query: 'compress' }))).toContain('rotate_logs')
    await elsewhere.skills.edit(
      'rotate_logs',
      { title: 'Logrotate nightly', description: 'Shrink archives of journal output', tags: ['janitor'] },
      elsewhere.now(),
    )
    await waitFor(async () => keys(await discover(here, admin, { query: 'journal archives janitor' }))[0] === 'rotate_logs', 15_000)
    expect(keys(await discover(here, admin, { query: 'compress' }))).not.toContain('rotate_logs')
    expect((await discover(here, admin, { query: 'logrotate nightly' })).results[0]).toMatchObject({ key: 'rotate_logs', why: ['exact key'] })
    await here.skills.edit('probe_port', { systemPrompt: 'Mention the zeppelin hangar' }, here.now())
    expect(keys(await discover(here, admin, { query: 'zeppelin' }))).toEqual(['probe_port'])
    // The skills not edited are found as before.
    expect(keys(await discover(here, admin, { query: 'orphaned' }))[0]).toBe('detect_orphans')
  }, 30_000)

  it('answers GET /api/skills/search for the key that asks, audited, and names a bad parameter', async () => {
    const plane = await open()
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const { key: fleetKey } = await plane.people.keys.create({ name: 'fleet-key', role: 'agent', agentId: 'fleet' }, plane.now())
      const { key: adminKey } = await plane.people.keys.create({ name: 'admin-key', role: 'admin' }, plane.now())
      const get = async (query: string, key = adminKey) => {
        const response = await fetch(`${server.url}/api/skills/search?${query}`, { headers: { authorization: `Bearer ${key}` } })
        return { status: response.status, body: (await response.json()) as any }
      }
      expect(await get('q=cost+report+per+team&limit=1')).toMatchObject({ status: 200, body: { results: [{ key: 'billing_report' }], omitted: 0 } })
      expect((await get('q=cost+report+per+team', fleetKey)).body.results.map((r: { key: string }) => r.key)).toEqual(['detect_orphans', 'delete_volume'])
      expect(await get('limit=2')).toMatchObject({ status: 400, body: { error: { code: 'invalid_input', message: expect.stringContaining('q') } } })
      expect(await get('q=x&limit=many')).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('limit') } } })
      expect(await get('q=x&limit=500')).toMatchObject({ status: 400 })
      expect(await get('q=cost&agent=Idle&excludeBound=true', fleetKey)).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
      const audited = await plane.audit.query({ skill: 'discover_skills', limit: 10 })
      expect(audited.items.map((e) => e.input)).toEqual(expect.arrayContaining([{ query: 'cost report per team', limit: 1 }]))
    } finally {
      await server.close()
    }
  })

  it('leaves out, in a large catalog, the words most skills hold, unless the query has nothing else', async () => {
    const many = Array.from({ length: 1_200 }, (_, i) =>
      defineSkill({ key: `report_${i}`, description: `Data report number ${i}${i === 7 ? ' about zebras' : ''}`, class: 'safe', run: noop }),
    )
    const plane = await open({ skills: many, agents: [] })
    const zebra = await discover(plane, admin, { query: 'data about zebras', limit: 3 })
    expect(zebra.results[0]).toMatchObject({ key: 'report_7', why: ['matched description: zebra'] })
    // Every word common: they are kept, so the query still finds something.
    expect((await discover(plane, admin, { query: 'data report', limit: 3 })).results).toHaveLength(3)
  })

  it('fuses a semantic leg when an embedding model is configured', async () => {
    // Two-dimensional "meanings": money-ish texts point one way, machine-ish texts the other.
    const meaning = (text: string) => (/cost|money|budget|billing|spend/i.test(text) ? [1, 0] : [0, 1])
    const model = new MockEmbeddingModelV3({
      doEmbed: async ({ values }) => ({ embeddings: values.map(meaning), warnings: [] }),
    })
    const plane = await open({ discovery: { embedding: model } })
    await plane.skills.discovery.ready()
    const answer = await discover(plane, admin, { query: 'how much do we spend', limit: 3 })
    expect(answer.results[0]!.why).toEqual(expect.arrayContaining([expect.stringContaining('similar in meaning')]))
    expect(['billing_report', 'detect_orphans']).toContain(answer.results[0]!.key)
    expect(model.doEmbedCalls.length).toBeGreaterThan(0)
  })
})
