import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../../test-support/databases.js'
import { openTestPlane } from '../../../test-support/fixtures.js'
import type { Skillplane } from '../../../agents/index.js'
import { createHttpApp } from '../create-http-app.js'

interface Cell {
  subject: string
  decision: string
  reason: string
  requirement: { approvals: number; approverRole: string; sop: boolean }
  policyId: string | null
  refusal: string | null
}
interface Matrix {
  subjects: Array<{ id: string; level: string; subject: string; label: string; note: string | null }>
  skills: Array<{ key: string; class: string; scope: string; cells: Cell[] }>
  nextCursor: string | null
}

describe.each(databases)('GET /api/policies/effective on $name', (database) => {
  let plane: Skillplane | undefined
  afterEach(async () => {
    await plane?.close()
    plane = undefined
  })

  const setUp = async () => {
    plane = await openTestPlane(database)
    const app = createHttpApp(plane)
    const keys = {
      admin: (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key,
      operator: (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key,
      viewer: (await plane.people.keys.create({ name: 'vera', role: 'viewer' }, plane.now())).key,
      helper: (await plane.people.keys.create({ name: 'helper-bot', role: 'agent', agentId: plane.agents.resolve('helper')! }, plane.now())).key,
      other: (await plane.people.keys.create({ name: 'other-bot', role: 'agent', agentId: plane.agents.resolve('other')! }, plane.now())).key,
    }
    const send = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await app.request(path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    const matrix = async (key: string, query: string) => {
      const answer = await send(key, 'GET', `/api/policies/effective?${query}`)
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      return answer.body as Matrix
    }
    const cell = (m: Matrix, skill: string, subject: string) => m.skills.find((s) => s.key === skill)!.cells.find((c) => c.subject === subject)!
    return { plane, keys, send, matrix, cell }
  }

  it('shows admins every subject with the decision, its reason and what stands in the way, as the pipeline decides', async () => {
    const { plane, keys, send, matrix, cell } = await setUp()
    const helper = plane.agents.resolve('helper')!
    const other = plane.agents.resolve('other')!
    let m = await matrix(keys.admin, 'skill=write_thing,wipe_things,echo')
    expect(m.subjects.map((s) => s.id)).toEqual(['role:viewer', 'role:operator', 'role:admin', 'role:agent', `agent:${helper}`, `agent:${other}`])
    expect(m.skills.map((s) => s.key)).toEqual(['echo', 'wipe_things', 'write_thing'])
    expect(cell(m, 'write_thing', 'role:operator')).toMatchObject({ decision: 'ALWAYS', reason: 'mutating skill', policyId: null, refusal: null })
    expect(cell(m, 'write_thing', 'role:viewer').refusal).toBe('role viewer may not run mutating skill "write_thing"')
    expect(cell(m, 'write_thing', `agent:${helper}`)).toMatchObject({ decision: 'ASK', reason: 'mutating skill requested by an agent', refusal: null })
    expect(cell(m, 'write_thing', `agent:${other}`).refusal).toContain('is not bound to agent')
    expect(cell(m, 'wipe_things', 'role:admin')).toMatchObject({ decision: 'ASK', requirement: { approvals: 2, approverRole: 'admin', sop: true } })

    // An override decides its cell (and only its cell), names itself, and the pipeline agrees.
    const set = await send(keys.admin, 'PUT', '/api/policies', { skill: 'write_thing', level: 'agent', subject: 'helper', decision: 'DENY' })
    expect(set.status).toBe(200)
    m = await matrix(keys.admin, 'skill=write_thing')
    expect(cell(m, 'write_thing', `agent:${helper}`)).toMatchObject({ decision: 'DENY', policyId: set.body.id, reason: expect.stringContaining(set.body.id) })
    expect(cell(m, 'write_thing', 'role:agent')).toMatchObject({ decision: 'ASK', policyId: null })
    const invoked = await send(keys.helper, 'POST', '/api/skills/write_thing/invoke', { input: { value: 'x' } })
    expect(invoked).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })

    // A user override brings that user's column, decided with the role of their key.
    await send(keys.admin, 'PUT', '/api/policies', { skill: 'echo', level: 'user', subject: 'oscar', decision: 'ASK' })
    await send(keys.admin, 'PUT', '/api/policies', { skill: 'echo', level: 'user', subject: 'gone', decision: 'DENY' })
    m = await matrix(keys.admin, 'skill=echo,write_thing')
    expect(m.subjects.slice(-2)).toEqual([
      { id: 'user:gone', level: 'user', subject: 'gone', label: 'gone', note: expect.stringContaining('shown as a viewer') },
      { id: 'user:oscar', level: 'user', subject: 'oscar', label: 'oscar', note: null },
    ])
    expect(cell(m, 'echo', 'user:oscar')).toMatchObject({ decision: 'ASK', policyId: expect.any(String) })
    expect(cell(m, 'write_thing', 'user:oscar')).toMatchObject({ decision: 'ALWAYS', refusal: null })
    expect(cell(m, 'write_thing', 'user:gone').refusal).toContain('role viewer')

    // Cleared, the class default is back.
    expect((await send(keys.admin, 'DELETE', `/api/policies/${set.body.id}`)).status).toBe(200)
    m = await matrix(keys.admin, `skill=write_thing&subject=agent:helper`)
    expect(m.skills[0]!.cells).toEqual([expect.objectContaining({ subject: `agent:${helper}`, decision: 'ASK', policyId: null })])
  })

  it('pages and filters the skills, and decides host skills on the edge asked for', async () => {
    const { plane, keys, send, matrix, cell } = await setUp()
    const first = await matrix(keys.admin, 'subject=role:operator&limit=3')
    expect(first.skills).toHaveLength(3)
    const second = await matrix(keys.admin, `subject=role:operator&limit=3&cursor=${first.nextCursor}`)
    expect(second.skills[0]!.key > first.skills[2]!.key).toBe(true)
    expect((await matrix(keys.admin, 'subject=role:operator&q=WIPE')).skills.map((s) => s.key)).toEqual(['wipe_things'])
    expect((await matrix(keys.admin, 'subject=role:operator&class=dangerous')).skills.every((s) => s.class === 'dangerous')).toBe(true)

    const enrolled = await plane.sources.edges.enroll({ name: 'prod-1', labels: { env: 'prod' } }, { id: 'k', name: 'root' })
    expect(enrolled.ok).toBe(true)
    const edgePolicy = await send(keys.admin, 'PUT', '/api/policies', { skill: 'remote_thing', level: 'edge', subject: 'env=prod', decision: 'DENY' })
    expect(cell(await matrix(keys.admin, 'skill=remote_thing&subject=role:operator'), 'remote_thing', 'role:operator').decision).toBe('ALWAYS')
    expect(cell(await matrix(keys.admin, 'skill=remote_thing&subject=role:operator&edge=prod-1'), 'remote_thing', 'role:operator')).toMatchObject({
      decision: 'DENY',
      policyId: edgePolicy.body.id,
    })

    for (const [query, message] of <Array<[string, string]>>[
      ['subject=role:king', 'unknown subject "role:king"'],
      ['subject=agent:nobody', 'unknown subject "agent:nobody"'],
      ['edge=nowhere', 'unknown edge "nowhere"'],
      ['limit=0', 'limit: must be an integer from 1 to 500'],
    ]) {
      const answer = await send(keys.admin, 'GET', `/api/policies/effective?${query}`)
      expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_input', message: expect.stringContaining(message) } } })
    }
  })

  it('tells every other key about itself only, over the skills it may see', async () => {
    const { plane, keys, send, matrix, cell } = await setUp()
    await send(keys.admin, 'PUT', '/api/policies', { skill: 'echo', level: 'role', subject: 'viewer', decision: 'ASK' })
    const mine = await matrix(keys.viewer, 'skill=echo,write_thing')
    expect(mine.subjects).toEqual([{ id: 'self', level: 'self', subject: 'vera', label: 'vera (you)', note: null }])
    expect(cell(mine, 'echo', 'self')).toMatchObject({ decision: 'ASK', policyId: expect.any(String) })
    expect(cell(mine, 'write_thing', 'self').refusal).toContain('role viewer')

    const helper = await matrix(keys.helper, 'subject=self')
    expect(helper.skills.map((s) => s.key)).toEqual([...plane.agents.boundSkills(plane.agents.resolve('helper')!)].sort())
    expect((await matrix(keys.other, 'skill=echo')).skills).toEqual([])

    for (const key of [keys.operator, keys.viewer, keys.helper]) {
      const answer = await send(key, 'GET', '/api/policies/effective?subject=self,role:admin')
      expect(answer).toMatchObject({ status: 403, body: { error: { code: 'denied', message: expect.stringContaining('subject=self') } } })
    }
    // Who can't list edges can't probe their names either.
    for (const key of [keys.viewer, keys.helper]) {
      for (const edge of ['prod-1', 'nowhere'])
        expect(await send(key, 'GET', `/api/policies/effective?edge=${edge}`)).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
    }
    expect((await send(keys.operator, 'GET', '/api/policies/effective?edge=nowhere')).body.error.message).toBe('unknown edge "nowhere"')
  })
})
