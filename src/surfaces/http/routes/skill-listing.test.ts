import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases, tree } from '../../../test-support/databases.js'
import { openTestPlane, testSkills } from '../../../test-support/fixtures.js'
import { defineSkill } from '../../../skill/define-skill.js'
import type { Skillplane } from '../../../agents/index.js'
import { startHttpServer, type HttpServer } from '../start-http-server.js'

const [sqlite] = databases

// Enough skills for several pages, their keys interleaved with the fixtures' (echo, write_thing, …).
const many = Array.from({ length: 230 }, (_, i) =>
  defineSkill({
    key: `${'abcdefghijklmnopqrstuvwxyz'[i % 26]}_bulk_${String(i).padStart(3, '0')}`,
    description: `Bulk skill ${i}`,
    class: i % 3 === 0 ? 'mutating' : 'safe',
    input: z.object({ n: z.number() }),
    run: () => ({}),
  }),
)

interface Page {
  skills: Array<{ key: string; class: string }>
  nextCursor: string | null
}

describe('GET /api/skills pages', () => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  async function open(moreInstructions: string[] = []) {
    // Instruction skills (SKILL.md) list beside the executable ones, in the same key order.
    const instructions = tree(
      Object.fromEntries(
        ['b-guide', 'm-guide', 'zz-guide', ...moreInstructions].map((name) => [
          `${name}/SKILL.md`,
          `---\nname: ${name}\ndescription: How to ${name}\n---\nSteps\n`,
        ]),
      ),
    )
    plane = await openTestPlane(sqlite!, { skills: [...testSkills(), ...many], skillDirs: [instructions] })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const admin = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    const helper = (await plane.people.keys.create({ name: 'helper-bot', role: 'agent', agentId: 'helper' }, plane.now())).key
    const get = async (path: string, key = admin) => {
      const response = await fetch(server!.url + path, { headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, body: (await response.json()) as Page & { error?: { code: string; message: string } } }
    }
    /** Every page of a listing, following nextCursor. */
    const walk = async (query: string, key = admin) => {
      const pages: Page[] = []
      let cursor: string | null = null
      do {
        const answer = await get(`/api/skills?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, key)
        expect(answer.status).toBe(200)
        pages.push(answer.body)
        cursor = answer.body.nextCursor
      } while (cursor !== null && pages.length < 1_000)
      return pages
    }
    return { get, walk, helper }
  }

  it('serves the listing in pages that together are the whole of it, in order, each skill once', async () => {
    const { get, walk } = await open()
    const whole = (await get('/api/skills?limit=500')).body
    expect(whole.nextCursor).toBeNull()
    expect(whole.skills.length).toBeGreaterThan(240)
    const keys = whole.skills.map((s) => s.key)
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)))
    expect(keys).toEqual(expect.arrayContaining(['b-guide', 'm-guide', 'zz-guide']))

    const pages = await walk('limit=7')
    expect(pages.flatMap((p) => p.skills.map((s) => s.key))).toEqual(keys)
    expect(pages.slice(0, -1).every((p) => p.skills.length === 7 && p.nextCursor !== null)).toBe(true)
    expect(pages.at(-1)!.nextCursor).toBeNull()

    // The default page: 100 skills and where to go on.
    const first = (await get('/api/skills')).body
    expect(first.skills.map((s) => s.key)).toEqual(keys.slice(0, 100))
    expect(first.nextCursor).toEqual(expect.any(String))
  })

  it('keeps the filters across pages, and an agent key pages through its own skills only', async () => {
    const { get, walk, helper } = await open()
    const mutating = (await get('/api/skills?class=mutating&limit=500')).body.skills.map((s) => s.key)
    expect(mutating.length).toBeGreaterThan(70)
    const pages = await walk('class=mutating&limit=9')
    expect(pages.flatMap((p) => p.skills.map((s) => s.key))).toEqual(mutating)
    expect(pages.flatMap((p) => p.skills).every((s) => s.class === 'mutating')).toBe(true)

    const text = await walk('q=bulk%20skill%201&limit=4')
    expect(text.flatMap((p) => p.skills.map((s) => s.key))).toEqual(
      many
        .filter((_, i) => `Bulk skill ${i}`.includes('Bulk skill 1'))
        .map((s) => s.key)
        .sort((a, b) => a.localeCompare(b)),
    )

    const own = await walk('limit=2', helper)
    expect(own.flatMap((p) => p.skills.map((s) => s.key))).toEqual(['discover_skills', 'echo', 'parent_call', 'wipe_things', 'write_thing'])
    expect(own).toHaveLength(3)
  })

  it('picks named skills with key=, never one the caller may not see', async () => {
    const { get, helper } = await open()
    expect((await get('/api/skills?key=write_thing,echo,z_bulk_025,nope')).body.skills.map((s) => s.key)).toEqual(['echo', 'write_thing', 'z_bulk_025'])
    expect((await get('/api/skills?key=echo,a_bulk_000', helper)).body.skills.map((s) => s.key)).toEqual(['echo'])
    expect((await get('/api/skills?key=write_thing,echo&limit=1')).body).toMatchObject({ skills: [{ key: 'echo' }], nextCursor: expect.any(String) })
  })

  it('goes on after the last key shown when a skill arrives between pages', async () => {
    const { get } = await open()
    const first = (await get('/api/skills?limit=3')).body
    const [a, b, c] = first.skills.map((s) => s.key)
    // A skill sorting before the cursor arrives: the next page still starts after the last key shown.
    plane!.skills.register(defineSkill({ key: 'a_aaa_new', description: 'Added between pages', class: 'safe', run: () => ({}) }), {
      source: 'code',
      origin: 'test',
    })
    expect([a, b, c].every((key) => key! > 'a_aaa_new' || key === undefined)).toBe(true)
    const whole = (await get('/api/skills?limit=500')).body.skills.map((s) => s.key)
    const next = (await get(`/api/skills?limit=3&cursor=${first.nextCursor}`)).body.skills.map((s) => s.key)
    expect(next).toEqual(whole.slice(whole.indexOf(c!) + 1, whole.indexOf(c!) + 4))
  })

  it('lists an executable skill and an instruction skill of the same name both, a page ending between them', async () => {
    // One word is a name of both kinds: lower_snake keys and SKILL.md names.
    const { get } = await open(['mguide'])
    plane!.skills.register(defineSkill({ key: 'mguide', description: 'Code of the same name', class: 'safe', run: () => ({}) }), {
      source: 'code',
      origin: 'test',
    })
    const whole = (await get('/api/skills?limit=500')).body.skills.map((s) => s.key)
    const at = whole.indexOf('mguide')
    expect(whole.slice(at, at + 2)).toEqual(['mguide', 'mguide'])
    // A page that ends on the executable one: the next starts with the instruction one.
    const first = (await get(`/api/skills?limit=${at + 1}`)).body
    expect(first.skills.at(-1)).toMatchObject({ key: 'mguide', description: 'Code of the same name' })
    const next = (await get(`/api/skills?limit=2&cursor=${first.nextCursor}`)).body.skills.map((s) => s.key)
    expect(next).toEqual(whole.slice(at + 1, at + 3))
  })

  it('refuses a page size out of range and a cursor it never gave out', async () => {
    const { get } = await open()
    for (const limit of ['0', '501', 'ten', '2.5']) {
      expect(await get(`/api/skills?limit=${limit}`)).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_input', message: 'invalid skills query: limit: must be an integer from 1 to 500' } },
      })
    }
    for (const cursor of ['!!', 'ZWNobw=', '%20']) {
      expect(await get(`/api/skills?cursor=${cursor}`)).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_input', message: expect.stringContaining('cursor: not a cursor this API gave out') } },
      })
    }
  })
})
