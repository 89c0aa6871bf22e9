import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, silentLogger } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/index.js'

const noop = () => ({ ok: true })
const skill = (key: string, description: string, extra: Partial<Parameters<typeof defineSkill>[0]> = {}) =>
  defineSkill({ key, description, class: 'safe', run: noop, ...extra })
const DAY = 24 * 60 * 60 * 1000

type Answer = { results: Array<{ key: string; why: string[]; score: number }> }

/** Requests built from a few everyday words, different each time (a fixed seed: the same every run). */
function commonRequests(count: number): string[] {
  const words = 'show list check status server today latest new file team data report open quick summary daily update error user account'.split(' ')
  let seed = 7
  const next = () => (seed = (seed * 48271) % 2147483647) % words.length
  return Array.from(
    { length: count },
    (_, i) =>
      `${Array.from({ length: 5 }, next)
        .map((n) => words[n])
        .join(' ')} ${i % 2 ? 'please' : 'now'}`,
  )
}

describe.each(databases)('discovery ranking on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  /** A plane on these skills; `clock` moves the time discovery ages what it learned by. */
  const open = async (skills: ReturnType<typeof skill>[], config: SkillplaneConfig = {}, clock?: () => Date) => {
    const plane = await createSkillplane({
      config: { skills, ...config },
      ...(await database.create()),
      logger: silentLogger(),
      sync: true,
      ...(clock && { clock }),
    })
    planes.push(plane)
    return plane
  }
  const discover = async (plane: Skillplane, query: string, conversationId?: string, limit = 10): Promise<Answer> => {
    const envelope = await plane.invoke('discover_skills', { query, limit }, { caller: admin, conversationId })
    if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
    return envelope.data as Answer
  }
  const keys = (answer: Answer) => answer.results.map((r) => r.key)
  const scoreOf = (answer: Answer, key: string) => answer.results.find((r) => r.key === key)?.score
  let conversations = 0
  /** The real learning path: each request discovered in a conversation of its own, then an ok call of the skill in it. */
  const teach = async (plane: Skillplane, key: string, requests: string[], input: Record<string, unknown> = {}, tick?: () => void) => {
    for (const request of requests) {
      const conversation = `teach-${conversations++}`
      await discover(plane, request, conversation, 1)
      const call = await plane.invoke(key, input, { caller: admin, conversationId: conversation })
      expect(call.ok).toBe(true)
      tick?.()
    }
  }

  it('makes no match of stop words, bare numbers or one-letter fragments', async () => {
    const plane = await open([
      skill('filler', "It's what I'm for: the 2024 and 42 of 7, a zeppelin"),
      skill('rotate_logs', 'Compress and rotate application log files'),
    ])
    expect(keys(await discover(plane, 'zeppelin'))).toEqual(['filler'])
    // Each kind alone: none of them is a word that matches.
    expect(keys(await discover(plane, 'the what and of for'))).toEqual([])
    expect(keys(await discover(plane, '2024 42 7'))).toEqual([])
    expect(keys(await discover(plane, "I'm it's s m"))).toEqual([])
    // Learned requests are read the same way: a request of such words teaches no match.
    await teach(plane, 'rotate_logs', ["it's 2024, I'm for the 42"])
    expect(plane.skills.discovery.stats().examples).toBe(1)
    expect(keys(await discover(plane, "it's 2024, I'm for the 42"))).toEqual([])
  })

  it('sums what each word is worth: one rare word outranks two common ones, with no bonus per word matched', async () => {
    const plane = await open([
      skill('flux', 'Tune the capacitor bank'),
      ...['north', 'south', 'east', 'west', 'inland', 'coastal'].map((region) => skill(`region_${region}`, `Monthly report data ${region}`)),
      ...'abcdefghijklm'.split('').map((letter) => skill(`chore_${letter}`, `Unrelated chore ${letter}x`)),
    ])
    const answer = await discover(plane, 'capacitor report data')
    expect(answer.results[0]).toMatchObject({ key: 'flux', why: ['matched description: capacitor'] })
    // Two common words together are worth more than half the rare one: a score times the words matched would put them first.
    const common = scoreOf(answer, 'region_north')!
    expect(common).toBeLessThan(1)
    expect(common * 2).toBeGreaterThan(1)
  })

  it('weighs each field as discovery.ranking says, from the config and live; refuses a bad ranking naming the field', async () => {
    const skills = [
      skill('probe_port', 'Check whether a service answers', { input: z.object({ hostname: z.string(), tcpPort: z.number().int() }) }),
      skill('rotate_logs', 'Compress and rotate application log files'),
    ]
    const byDefault = await open(skills)
    expect((await discover(byDefault, 'hostname')).results).toEqual([expect.objectContaining({ key: 'probe_port', why: ['matched args: hostnam'] })])
    const noArgs = await open(skills, { discovery: { ranking: { fields: { args: 0 } } } })
    expect(keys(await discover(noArgs, 'hostname'))).toEqual([])
    // Matched by its description, it no longer names the arguments it also matched in `why`.
    expect((await discover(noArgs, 'service hostname')).results[0]).toMatchObject({ key: 'probe_port', why: ['matched description: servic'] })
    // Live: back to the defaults, then the description left out (the key still matches).
    noArgs.skills.discovery.setRanking({})
    expect(keys(await discover(noArgs, 'hostname'))).toEqual(['probe_port'])
    noArgs.skills.discovery.setRanking({ fields: { description: 0 } })
    expect(noArgs.skills.discovery.ranking.fields).toMatchObject({ description: 0, args: 0.3 })
    expect(keys(await discover(noArgs, 'rotate'))).toEqual(['rotate_logs'])
    expect(keys(await discover(noArgs, 'compress application files'))).toEqual([])

    const refused = (ranking: unknown) => open(skills, { discovery: { ranking } } as SkillplaneConfig)
    await expect(refused({ fields: { args: -1 } })).rejects.toThrow(/discovery\.ranking\.fields\.args/)
    await expect(refused({ fields: { summary: 1 } })).rejects.toThrow(/discovery\.ranking\.fields.*summary/)
    await expect(refused({ b: 1.5 })).rejects.toThrow(/discovery\.ranking\.b/)
    await expect(refused({ neighbors: 0.3 })).rejects.toThrow(/discovery\.ranking.*neighbors/)
    await expect(refused({ prefix: 'yes' })).rejects.toThrow(/discovery\.ranking\.prefix/)
    // The library's setRanking refuses the same, naming it, and keeps the ranking it had.
    const before = noArgs.skills.discovery.ranking
    expect(() => noArgs.skills.discovery.setRanking({ b: 1.5 })).toThrow('discovery ranking: b must be a number from 0 to 1, not 1.5')
    expect(() => noArgs.skills.discovery.setRanking({ k1: Number.NaN })).toThrow('discovery ranking: k1 must be')
    expect(() => noArgs.skills.discovery.setRanking({ fields: { summary: 1 } as never })).toThrow('discovery ranking: no field "summary"')
    expect(() => noArgs.skills.discovery.setRanking({ fuzzyFrom: 2.5 })).toThrow('discovery ranking: fuzzyFrom must be a whole number')
    expect(noArgs.skills.discovery.ranking).toBe(before)
  })
  it('counts no word of a field weighted 0, not even to make a word common: every code skill’s source is "code"', async () => {
    const reviews = [skill('review_changes', 'Review code changes before merge'), skill('review_design', 'Review the design of a feature')]
    const small = await discover(await open(reviews), 'review code')
    expect(keys(small)[0]).toBe('review_changes')
    expect(scoreOf(small, 'review_design')).toBeLessThan(0.8)
    // In a large catalog a word most skills hold is left out of a query; held only in the source field, "code" is not such a word.
    const chores = Array.from({ length: 1_050 }, (_, i) => skill(`chore_${i}`, `Routine chore ${i}`))
    const large = await discover(await open([...reviews, ...chores]), 'review code')
    expect(keys(large)[0]).toBe('review_changes')
    expect(scoreOf(large, 'review_design')).toBeLessThan(0.8)
    expect(large.results[0]!.why).toEqual(['matched key: review; title: review; description: review, code'])
  })

  it('keeps a heavy learner from crowding out a skill whose own words fit the request', async () => {
    const plane = await open([
      skill('general_helper', 'Answers general questions'),
      skill('renew_certs', 'Renew expiring TLS certificates on the load balancer'),
      skill('build_status', 'Show the status of the build queue'),
      skill('open_tickets', 'List open tickets for a team'),
      skill('error_digest', 'Daily summary report of new errors'),
      skill('user_lookup', 'Find a user account by name or email'),
      skill('server_health', 'Check a server and report its health'),
      skill('file_share', 'Share a file with a team'),
    ])
    const requests = commonRequests(340)
    await teach(plane, 'general_helper', requests.slice(0, 300))
    // A few of the same everyday requests led to other skills too, as they do in any deployment.
    for (const [i, key] of ['build_status', 'open_tickets', 'error_digest', 'server_health'].entries())
      await teach(plane, key, requests.slice(300 + i * 10, 310 + i * 10))
    expect(plane.skills.discovery.stats().examples).toBe(340)
    // The helper holds every everyday word of the request, hundreds of times over; the certificates skill the specific ones.
    const answer = await discover(plane, 'renew the expiring certificates on the server today')
    expect(keys(answer)[0]).toBe('renew_certs')
    // What the helper did learn, it is found for.
    expect(keys(await discover(plane, requests[0]!))[0]).toBe('general_helper')
  }, 60_000)

  it('learns a request at once through discover then an ok call, and fades it by the half-life until it is forgotten', async () => {
    let time = Date.parse('2026-03-01T00:00:00Z')
    const plane = await open(
      [skill('post_ledger', 'Post entries to the general ledger'), skill('move_files', 'Move files between folders')],
      { discovery: { usageHalfLifeDays: 1 } },
      () => new Date(time),
    )
    const query = 'reconcile the ledger entries'
    expect(keys(await discover(plane, query))[0]).toBe('post_ledger')
    expect(keys(await discover(plane, query))).not.toContain('move_files')
    await teach(plane, 'move_files', [query])
    // At once: no refresh, no flush, no other event.
    const fresh = await discover(plane, query)
    expect(keys(fresh)[0]).toBe('move_files')
    expect(fresh.results[0]!.why).toContain('asked for like this before (reconcil, ledger, entri; 1 stored request)')
    const scores: number[] = []
    for (const days of [1, 2, 3, 6]) {
      time = Date.parse('2026-03-01T00:00:00Z') + days * DAY
      const aged = await discover(plane, query)
      scores.push(scoreOf(aged, 'move_files')! / scoreOf(aged, 'post_ledger')!)
    }
    // Each half-life halves what it learned; six in, it weighs little, but is still there.
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(scores[3]).toBeGreaterThan(0)
    expect(scores[3]).toBeLessThan(0.1)
    // Past seven half-lives it is forgotten.
    time += 2 * DAY
    // The heartbeat's next look at the store forgets it.
    await waitFor(() => plane.skills.discovery.stats().examples === 0)
    expect(keys(await discover(plane, query))).not.toContain('move_files')
  })

  it('keeps the newest 500 requests per skill: the oldest leave the index too', async () => {
    let time = Date.parse('2026-03-01T00:00:00Z')
    // No typo forgiven here: crate0z is one letter from crate20z.
    const plane = await open([skill('move_files', 'Move files between folders')], { discovery: { ranking: { fuzzyFrom: 0 } } }, () => new Date(time))
    await teach(
      plane,
      'move_files',
      Array.from({ length: 520 }, (_, i) => `shift crate${i}z`),
      {},
      () => (time += 60_000),
    )
    expect(plane.skills.discovery.stats().examples).toBe(500)
    expect(keys(await discover(plane, 'crate0z'))).toEqual([])
    expect(keys(await discover(plane, 'crate19z'))).toEqual([])
    expect(keys(await discover(plane, 'crate20z'))).toEqual(['move_files'])
    expect(keys(await discover(plane, 'crate519z'))).toEqual(['move_files'])
  }, 60_000)

  it('ranks first the skill a nearly identical past request led to, by the neighbours vote; neighbours 0 turns it off', async () => {
    // Learned words weigh little here, so that the words alone favour the description.
    const plane = await open([skill('cold_storage', 'Archive invoices in the vault'), skill('move_files', 'Move files between folders')], {
      discovery: { ranking: { usage: 0.25, neighbours: 1 } },
    })
    await teach(plane, 'move_files', ['archive old invoices quarterly in the vault', 'copy the photos to the shared drive', 'put backups on the nas'])
    const query = 'archive old invoices quarterly into the vault'
    const voted = await discover(plane, query)
    expect(keys(voted)).toEqual(['move_files', 'cold_storage'])
    plane.skills.discovery.setRanking({ usage: 0.25, neighbours: 0 })
    const unvoted = await discover(plane, query)
    expect(keys(unvoted)).toEqual(['cold_storage', 'move_files'])
  })

  it('matches the last word as a prefix and, when fuzzyFrom says, words with one typo', async () => {
    const skills = [skill('restart_service', 'Restart a systemd unit'), skill('rotate_logs', 'Compress and rotate application log files')]
    // Prefixes first, with no typo forgiven (restar is one letter from restart).
    const plane = await open(skills, { discovery: { ranking: { fuzzyFrom: 0, prefix: true } } })
    expect((await discover(plane, 'systemd restar')).results[0]).toMatchObject({
      key: 'restart_service',
      why: ['matched description: systemd, restart; key: restart; title: restart'],
    })
    expect(keys(await discover(plane, 'restar'))).toEqual(['restart_service'])
    // Only the last word: an unfinished one before it is a word of its own.
    expect(keys(await discover(plane, 'restar units'))).toEqual(['restart_service'])
    expect(keys(await discover(plane, 'restar compress'))).toEqual(['rotate_logs'])
    expect(keys(await discover(plane, 'systmd'))).toEqual([])
    // By default, words of six letters or more forgive one typo.
    plane.skills.discovery.setRanking({})
    expect((await discover(plane, 'systmd')).results[0]).toMatchObject({ key: 'restart_service', why: ['matched description: systemd'] })
    plane.skills.discovery.setRanking({ fuzzyFrom: 5, prefix: true })
    expect((await discover(plane, 'systmd')).results[0]).toMatchObject({ key: 'restart_service', why: ['matched description: systemd'] })
    expect(keys(await discover(plane, 'rotat'))).toEqual(['rotate_logs'])
    plane.skills.discovery.setRanking({ prefix: false, fuzzyFrom: 0 })
    expect(keys(await discover(plane, 'restar'))).toEqual([])
    // A word some skill holds is taken as meant, never as a typo of another one.
    const planets = await open([skill('plane_tickets', 'Book plane seats'), skill('planet_facts', 'Facts about each planet')])
    expect(keys(await discover(planets, 'planet'))).toEqual(['planet_facts'])
    expect(keys(await discover(planets, 'planer'))).toEqual(expect.arrayContaining(['plane_tickets', 'planet_facts']))
    // Shorter than fuzzyFrom: no typo forgiven.
    plane.skills.discovery.setRanking({ fuzzyFrom: 7, prefix: false })
    expect(keys(await discover(plane, 'systmd'))).toEqual([])
  })
})
