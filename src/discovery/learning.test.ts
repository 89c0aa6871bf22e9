import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases, tree } from '../test-support/databases.js'
import { admin, agentCaller, silentLogger } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/index.js'
import type { Caller } from '../skill/index.js'

const noop = () => ({ ok: true })
const skill = (key: string, description: string, extra: Partial<Parameters<typeof defineSkill>[0]> = {}) =>
  defineSkill({ key, description, class: 'safe', agents: ['Fleet'], run: noop, ...extra })

function catalog() {
  return [
    skill('print_labels', 'Print shipping labels for outgoing parcels'),
    skill('pack_boxes', 'Fold cardboard cartons and fill them with padding', { input: z.object({ count: z.number().int() }) }),
    skill('jam_printer', 'Feed paper until the tray jams', {
      run: () => {
        throw new Error('jammed')
      },
    }),
    // Not bound to Fleet: its key never sees it.
    skill('open_vault', 'Open the strongroom door', { agents: [] }),
    skill('probe_port', 'Check whether a service answers on a TCP port'),
    skill('rotate_logs', 'Compress and rotate application log files'),
    // The busy one: called after everything.
    skill('audit_trail', 'Write an entry in the change journal'),
    skill('restart_service', 'Restart a systemd unit'),
    skill('scale_pool', 'Grow or shrink a worker pool'),
    skill('drain_node', 'Move workloads off a machine'),
    skill('flush_cache', 'Empty a memcached cluster'),
    skill('tag_release', 'Tag a release in git', { related: { composes: ['publish_notes'] } }),
    skill('publish_notes', 'Publish the notes of a release'),
  ]
}

type Answer = { results: Array<{ key: string; why: string[]; score: number }> }

describe.each(databases)('discovery learning on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (config: SkillplaneConfig = {}, location?: { dataDir: string; databaseUrl?: string }) => {
    const plane = await createSkillplane({
      config: { skills: catalog(), agents: [{ name: 'Fleet' }], ...config },
      ...(location ?? (await database.create())),
      logger: silentLogger(),
      sync: true,
    })
    planes.push(plane)
    return plane
  }
  const discover = async (plane: Skillplane, caller: Caller, query: string, conversationId?: string, limit = 10): Promise<Answer> => {
    const envelope = await plane.invoke('discover_skills', { query, limit }, { caller, conversationId })
    if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
    return envelope.data as Answer
  }
  const call = async (plane: Skillplane, key: string, input: unknown, conversationId: string, caller: Caller = admin) =>
    (await plane.invoke(key, input, { caller, conversationId })).ok
  const keys = (answer: Answer) => answer.results.map((r) => r.key)
  const learned = (answer: Answer, key: string) =>
    (answer.results.find((r) => r.key === key)?.why ?? []).some((w) => w.startsWith('asked for like this before'))

  it('teaches a skill called after a discovery the request, though the discovery did not return it; failed calls and select: teach nothing', async () => {
    const plane = await open()
    const query = 'labels for outgoing parcels'
    const first = await discover(plane, admin, query, 'c1')
    expect(keys(first)).toContain('print_labels')
    expect(keys(first)).not.toContain('pack_boxes')
    // Refused and failed calls first: nothing learned from them.
    expect(await call(plane, 'pack_boxes', { count: 'two' }, 'c1')).toBe(false)
    expect(await call(plane, 'jam_printer', {}, 'c1')).toBe(false)
    expect(plane.skills.discovery.stats().examples).toBe(0)
    expect(await call(plane, 'pack_boxes', { count: 2 }, 'c1')).toBe(true)
    // Each request once per skill.
    expect(await call(plane, 'pack_boxes', { count: 3 }, 'c1')).toBe(true)
    expect(plane.skills.discovery.stats().examples).toBe(1)
    const after = await discover(plane, admin, 'outgoing parcels')
    expect(keys(after)).toContain('pack_boxes')
    expect(learned(after, 'pack_boxes')).toBe(true)
    expect(keys(after)).not.toContain('jam_printer')
    // A fetch by key teaches nothing about how people ask.
    await discover(plane, admin, 'select:print_labels', 'c2')
    expect(await call(plane, 'print_labels', {}, 'c2')).toBe(true)
    expect(plane.skills.discovery.stats().examples).toBe(1)
  })

  it('teaches a skill the latest discovery of its conversation, and earlier ones only if they returned it', async () => {
    const plane = await open()
    expect(keys(await discover(plane, admin, 'print shipping labels', 'c5'))).toContain('print_labels')
    expect(await call(plane, 'print_labels', {}, 'c5')).toBe(true)
    const rotate = await discover(plane, admin, 'rotate the log files', 'c5')
    expect(keys(rotate)).not.toContain('print_labels')
    expect(await call(plane, 'rotate_logs', {}, 'c5')).toBe(true)
    // The first request led to print_labels only: rotate_logs, called after the conversation moved on, learns only its own.
    expect(plane.skills.discovery.stats().examples).toBe(2)
    expect(learned(await discover(plane, admin, 'shipping labels'), 'rotate_logs')).toBe(false)
    // A skill an earlier discovery did return still learns that request, called later.
    expect(keys(await discover(plane, admin, 'compress parcels', 'c6'))).toEqual(expect.arrayContaining(['rotate_logs', 'print_labels']))
    await discover(plane, admin, 'weigh the freight', 'c6')
    expect(await call(plane, 'print_labels', {}, 'c6')).toBe(true)
    expect(plane.skills.discovery.stats().examples).toBe(4)
  })

  it('teaches only skills the caller who discovered could have found, whoever calls them in that conversation', async () => {
    const plane = await open()
    const fleet = agentCaller('fleet')
    const query = 'weigh the freight'
    expect(keys(await discover(plane, admin, query))).toEqual([])
    await discover(plane, fleet, query, 'c3')
    // The same conversation id, another caller: open_vault is hidden from Fleet, pack_boxes is not.
    expect(await call(plane, 'open_vault', {}, 'c3')).toBe(true)
    expect(await call(plane, 'pack_boxes', { count: 1 }, 'c3')).toBe(true)
    expect(plane.skills.discovery.stats().examples).toBe(1)
    const after = await discover(plane, admin, query)
    expect(keys(after)).toEqual(['pack_boxes'])
    expect(learned(after, 'pack_boxes')).toBe(true)
  })

  it('teaches the instruction-skill tools nothing they were not found for: they follow every discovery of an instruction skill', async () => {
    const dir = tree({ 'parcel-guide/SKILL.md': '---\nname: parcel-guide\ndescription: How to weigh freight before it ships\n---\nUse the scale.\n' })
    const plane = await open({ skillDirs: [dir] })
    expect(keys(await discover(plane, admin, 'weigh the freight', 'c5'))).toEqual(['parcel-guide'])
    expect(await call(plane, 'activate_skill', { name: 'parcel-guide' }, 'c5')).toBe(true)
    expect(plane.skills.discovery.stats().examples).toBe(0)
  })

  /** Each pair called in a fresh conversation, the first then the second. */
  const sequences = async (plane: Skillplane, pairs: Array<[string, string]>) => {
    let n = 0
    for (const [from, to] of pairs) {
      const conversation = `seq-${n++}`
      expect(await call(plane, from, {}, conversation)).toBe(true)
      expect(await call(plane, to, {}, conversation)).toBe(true)
    }
  }
  // audit_trail follows each of four skills twice; rotate_logs follows probe_port twice and nothing else.
  const busyAndPair: Array<[string, string]> = [
    ...['restart_service', 'scale_pool', 'drain_node', 'flush_cache'].flatMap((key): Array<[string, string]> => [
      [key, 'audit_trail'],
      [key, 'audit_trail'],
    ]),
    ['probe_port', 'rotate_logs'],
    ['probe_port', 'rotate_logs'],
  ]

  it('learns relations by lift: a busy skill called after everything relates to nothing, a real pair does', async () => {
    const plane = await open()
    await sequences(plane, busyAndPair)
    for (const key of ['restart_service', 'scale_pool', 'drain_node', 'flush_cache']) {
      const found = await discover(plane, admin, key.replace('_', ' '))
      expect(found.results[0]!.key).toBe(key)
      expect(found.results.flatMap((r) => r.why).join()).not.toContain(`related to ${key}`)
      expect(keys(found)).not.toContain('audit_trail')
    }
    const pair = await discover(plane, admin, 'answers on tcp')
    expect(keys(pair)).toEqual(['probe_port', 'rotate_logs'])
    expect(pair.results[1]!.why).toEqual(['related to probe_port (called next 2 times)'])
  })

  it('learns a deployment’s one main workflow, which follows nothing else', async () => {
    const plane = await open()
    // Only probe_port → rotate_logs is ever called in sequence: it is every follow-up there is.
    await sequences(plane, [
      ['probe_port', 'rotate_logs'],
      ['probe_port', 'rotate_logs'],
    ])
    const pair = await discover(plane, admin, 'answers on tcp')
    expect(keys(pair)).toEqual(['probe_port', 'rotate_logs'])
    expect(pair.results[1]!.why).toEqual(['related to probe_port (called next 2 times)'])
  })

  it('never ranks a related skill above a direct match; relations 0 changes nothing', async () => {
    const location = await database.create()
    const plane = await open({}, location)
    // rotate_logs matched by one word of five, flush_cache by none but its own.
    const raisedQuery = 'check whether tcp port answers rotate'
    const onlyRelatedQuery = 'check whether tcp port answers cache'
    const before = { raised: await discover(plane, admin, raisedQuery), onlyRelated: await discover(plane, admin, onlyRelatedQuery) }
    await sequences(plane, busyAndPair)
    // Brought by its relation alone, it comes after every skill that matched, however weakly.
    const onlyRelated = await discover(plane, admin, onlyRelatedQuery)
    expect(keys(onlyRelated)).toEqual([...keys(before.onlyRelated), 'rotate_logs'])
    expect(keys(onlyRelated)).toContain('flush_cache')
    // Matched as well: raised, never above the skill it is related to.
    const raised = await discover(plane, admin, raisedQuery)
    const score = (answer: Answer, key: string) => answer.results.find((r) => r.key === key)!.score
    expect(keys(raised)[0]).toBe('probe_port')
    expect(score(raised, 'rotate_logs')).toBeGreaterThan(score(before.raised, 'rotate_logs'))
    expect(score(raised, 'rotate_logs')).toBeLessThanOrEqual(score(raised, 'probe_port'))
    expect(raised.results.find((r) => r.key === 'rotate_logs')!.why).toContain('related to probe_port (called next 2 times)')
    await plane.close()
    // At full weight as well: a related skill reaches its seed's score at most, and one only a relation brings still comes last.
    const full = await open({ discovery: { ranking: { relations: 1 } } }, location)
    expect(keys(await discover(full, admin, onlyRelatedQuery))).toEqual(keys(onlyRelated))
    const fully = await discover(full, admin, raisedQuery)
    expect(keys(fully)[0]).toBe('probe_port')
    expect(score(fully, 'rotate_logs')).toBeLessThanOrEqual(score(fully, 'probe_port'))
    // A declared relation is at full strength: raised to its seed's score, and no further.
    const declared = await discover(full, admin, 'tag git release')
    expect(keys(declared).slice(0, 2)).toEqual(['tag_release', 'publish_notes'])
    expect(declared.results[1]).toMatchObject({ score: 1, why: expect.arrayContaining(['related to tag_release (composes)']) })
    // The same evidence read with relations switched off: the rankings from before, to the letter.
    const off = await open({ discovery: { ranking: { relations: 0 } } }, location)
    expect(await discover(off, admin, raisedQuery)).toEqual(before.raised)
    expect(await discover(off, admin, onlyRelatedQuery)).toEqual(before.onlyRelated)
  })
})
