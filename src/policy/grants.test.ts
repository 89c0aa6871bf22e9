import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases } from '../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, operator, silentLogger, testAgents, testSkills, viewer, wipes } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { Caller } from '../skill/skill-types.js'

const helper = agentCaller('helper')
const other = agentCaller('other')
// Another key of the same agent: a grant covers the key that asked only.
const helperTwin: Caller = { kind: 'agent', id: 'k-helper-2', name: 'helper-2-key', agentId: 'helper' }
const operator2: Caller = { kind: 'user', id: 'u-op2', name: 'olga', role: 'operator' }

// Bound to both agents, so that another agent can call it too.
const sharedWrite = defineSkill({
  key: 'shared_write',
  description: 'A mutating skill both agents may call',
  class: 'mutating',
  agents: ['Helper', 'Other'],
  input: z.object({ value: z.string() }),
  run: ({ value }) => ({ stored: value }),
})

// The policy lets the agent run it; the skill itself asks about big batches.
const bulkMove = defineSkill({
  key: 'bulk_move',
  description: 'Moves items; asks a human for large batches',
  class: 'mutating',
  agents: ['Helper'],
  input: z.object({ ids: z.array(z.string()).min(1) }),
  needsApproval: ({ ids }) => (ids.length > 2 ? `a batch of ${ids.length} items exceeds 2` : false),
  run: ({ ids }) => ({ moved: ids.length }),
})

describe.each(databases)('approval grants on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  // The plane's clock is the grants' clock: moving it ages them.
  let time = 0
  const open = async (config: Record<string, unknown> = {}) => {
    time = Date.now()
    const plane = await createSkillplane({
      config: { skills: [...testSkills(), sharedWrite, bulkMove], agents: testAgents, ...config },
      ...(await database.create()),
      logger: silentLogger(),
      sync: true,
      clock: () => new Date(time),
    })
    planes.push(plane)
    return plane
  }
  const write = (plane: Skillplane, caller: Caller, value: string, conversationId: string | null, skill = 'shared_write') =>
    plane.invoke(skill, { value }, { caller, conversationId })
  /** A request by `caller`, approved by `approver` with this scope. */
  const granted = async (plane: Skillplane, scope: 'conversation' | 'always', extra: { minutes?: number; approver?: Caller; conversationId?: string } = {}) => {
    const asked = await write(plane, helper, 'first', extra.conversationId ?? 'c1')
    const id = approvalIdOf(asked)
    const decided = await plane.approvals.decide({ id, caller: extra.approver ?? operator, decision: 'approve', scope, minutes: extra.minutes })
    if (!decided.ok) throw new Error(decided.message)
    return { id, asked, decided }
  }

  it('commits a conversation grant with the approval or not at all: a grant that cannot be stored leaves the request pending', async () => {
    const where = await database.create()
    const plane = await createSkillplane({
      config: { skills: [...testSkills(), sharedWrite], agents: testAgents },
      ...where,
      logger: silentLogger(),
      sync: true,
    })
    planes.push(plane)
    // Another process breaks the grants table under the running plane.
    const rename = async (from: string, to: string) => {
      const statement = `ALTER TABLE ${from} RENAME TO ${to}`
      if (!where.databaseUrl) return void new SQLite(join(where.dataDir, 'skillplane.db')).exec(statement).close()
      const client = new pg.Client({ connectionString: where.databaseUrl })
      await client.connect()
      await client.query(statement)
      await client.end()
    }
    const id = approvalIdOf(await write(plane, helper, 'first', 'c1'))
    await rename('approval_grants', 'approval_grants_away')
    await expect(plane.approvals.decide({ id, caller: operator, decision: 'approve', scope: 'conversation' })).rejects.toThrow()
    expect(await plane.approvals.get(id)).toMatchObject({ status: 'pending', decisions: [] })
    await rename('approval_grants_away', 'approval_grants')
    expect(await plane.approvals.decide({ id, caller: operator, decision: 'approve', scope: 'conversation' })).toMatchObject({
      ok: true,
      granted: { scope: 'conversation' },
    })
  })

  it('grants nothing for a call the skill asked about (needsApproval), and no grant covers such a call', async () => {
    const plane = await open()
    const admitted = await plane.policies.set(
      { skill: 'bulk_move', level: 'agent', subject: 'helper', decision: 'ALWAYS' },
      admin,
      new Date(time).toISOString(),
    )
    expect(admitted.ok).toBe(true)
    const big = await plane.invoke('bulk_move', { ids: ['a', 'b', 'c'] }, { caller: helper, conversationId: 'c1' })
    const id = approvalIdOf(big)
    const refused = await plane.approvals.decide({ id, caller: operator, decision: 'approve', scope: 'conversation' })
    expect(refused).toMatchObject({ ok: false, code: 'invalid_input', message: expect.stringMatching(/asked by the skill about this input.*approve it once/) })
    expect((await plane.approvals.get(id))!.status).toBe('pending')
    // A grant for the skill from a policy-driven request (the ALWAYS override gone meanwhile) still doesn't cover what the skill asks about.
    const cleared = plane.policies.list().find((p) => p.skill === 'bulk_move')!
    await plane.policies.clear(cleared.id, admin)
    const small = await plane.invoke('bulk_move', { ids: ['a'] }, { caller: helper, conversationId: 'c1' })
    const decided = await plane.approvals.decide({ id: approvalIdOf(small), caller: operator, decision: 'approve', scope: 'conversation' })
    expect(decided).toMatchObject({ ok: true, granted: { scope: 'conversation' } })
    await plane.policies.set({ skill: 'bulk_move', level: 'agent', subject: 'helper', decision: 'ALWAYS' }, admin, new Date(time).toISOString())
    const again = await plane.invoke('bulk_move', { ids: ['x', 'y', 'z', 'w'] }, { caller: helper, conversationId: 'c1' })
    expect(again).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    expect(await plane.invoke('bulk_move', { ids: ['x'] }, { caller: helper, conversationId: 'c1' })).toMatchObject({ ok: true })
  })

  it('lets the same requester and agent run the skill again in that conversation, with any input, until the grant expires', async () => {
    const plane = await open()
    const { id, decided } = await granted(plane, 'conversation', { minutes: 30 })
    expect(decided.granted).toMatchObject({
      scope: 'conversation',
      grant: {
        approvalId: id,
        skill: 'shared_write',
        agent: 'helper',
        conversationId: 'c1',
        requester: { id: helper.id },
        onBehalfOf: null,
        grantedBy: { id: operator.id, name: 'oscar' },
        status: 'active',
        expiresAt: new Date(time + 30 * 60_000).toISOString(),
      },
    })
    const grantId = decided.ok && decided.granted?.scope === 'conversation' ? decided.granted.grant.id : ''

    // The 2nd and 3rd calls run at once; their audit rows name the grant, and no request is filed.
    const second = await write(plane, helper, 'second', 'c1')
    const third = await write(plane, helper, 'third', 'c1')
    expect([second, third]).toMatchObject([
      { ok: true, data: { stored: 'second' } },
      { ok: true, data: { stored: 'third' } },
    ])
    for (const call of [second, third]) expect(await plane.audit.get(call.callId)).toMatchObject({ status: 'ok', grantId, approvalId: null })
    expect((await plane.approvals.list({ limit: 10 })).items).toHaveLength(1)
    // The approved call itself still runs once with its request.
    const resumed = await plane.invoke('shared_write', { value: 'first' }, { caller: helper, conversationId: 'c1', approval: { mode: 'use', approvalId: id } })
    expect(resumed).toMatchObject({ ok: true })
    expect(await plane.audit.get(resumed.callId)).toMatchObject({ approvalId: id, grantId: null })
    // Repeating that approval id (an LLM does) is no reason to refuse a call the grant covers.
    const repeated = await plane.invoke('shared_write', { value: 'first' }, { caller: helper, conversationId: 'c1', approval: { mode: 'use', approvalId: id } })
    expect(repeated).toMatchObject({ ok: true })
    expect(await plane.audit.get(repeated.callId)).toMatchObject({ grantId, approvalId: null })

    // Not in another conversation, nor without one, nor for another agent or another key of the same agent.
    for (const [caller, conversation] of [
      [helper, 'c2'],
      [helper, null],
      [other, 'c1'],
      [helperTwin, 'c1'],
    ] as const) {
      const refused = await write(plane, caller, 'elsewhere', conversation)
      expect(refused, `${caller.id} in ${conversation}`).toMatchObject({ ok: false, error: { code: 'approval_required' } })
      expect(await plane.audit.get(refused.callId)).toMatchObject({ grantId: null })
    }
    // Nor another skill.
    expect(await write(plane, helper, 'x', 'c1', 'write_thing')).toMatchObject({ ok: false, error: { code: 'approval_required' } })

    // Listed while it lives; after its 30 minutes the calls ask again.
    expect((await plane.approvals.grants.list({ status: 'active', limit: 10 })).items.map((g) => g.id)).toEqual([grantId])
    time += 30 * 60_000
    expect(await write(plane, helper, 'late', 'c1')).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    expect(await plane.approvals.grants.get(grantId)).toMatchObject({ status: 'expired' })
    expect((await plane.approvals.grants.list({ status: 'active', limit: 10 })).items).toEqual([])
    expect((await plane.approvals.grants.list({ status: 'expired', limit: 10 })).items.map((g) => g.id)).toEqual([grantId])

    const history = await plane.audit.events.list({ subject: `approval:${id}`, limit: 20 })
    expect(history.items.find((e) => e.kind === 'approval.grant_created')).toMatchObject({
      actor: { id: operator.id },
      details: { scope: 'conversation', grant: { id: grantId } },
    })
  })

  it('lasts 60 minutes unless the approver says, and ends when its granter or an admin revokes it', async () => {
    const plane = await open()
    const { id, decided } = await granted(plane, 'conversation')
    const grant = decided.ok && decided.granted?.scope === 'conversation' ? decided.granted.grant : undefined
    expect(grant!.expiresAt).toBe(new Date(time + 60 * 60_000).toISOString())
    expect(await write(plane, helper, 'covered', 'c1')).toMatchObject({ ok: true })

    // Another operator may not; no agent or viewer either.
    for (const caller of [operator2, viewer, helper])
      expect(await plane.approvals.grants.revoke(grant!.id, caller)).toMatchObject({ ok: false, code: 'denied' })
    expect(await plane.approvals.grants.revoke('01NOSUCHGRANT0000000000000', operator)).toMatchObject({ ok: false, code: 'not_found' })
    const revoked = await plane.approvals.grants.revoke(grant!.id, operator)
    expect(revoked).toMatchObject({ ok: true, grant: { status: 'revoked', revokedBy: { id: operator.id } } })
    expect(await plane.approvals.grants.revoke(grant!.id, admin)).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('already revoked'),
    })
    expect(await write(plane, helper, 'after revoke', 'c1')).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    const history = await plane.audit.events.list({ subject: `approval:${id}`, kind: 'approval.grant_revoked', limit: 5 })
    expect(history.items).toMatchObject([{ actor: { id: operator.id }, details: { grant: { id: grant!.id, status: 'revoked' } } }])

    // An admin may revoke another approver's grant.
    const next = await granted(plane, 'conversation', { conversationId: 'c9' })
    const nextGrant = next.decided.ok && next.decided.granted?.scope === 'conversation' ? next.decided.granted.grant : undefined
    expect(await plane.approvals.grants.revoke(nextGrant!.id, admin)).toMatchObject({ ok: true })
  })

  it('writes an ALWAYS override for the agent and skill when an admin approves always, audited with the approval it came from', async () => {
    const plane = await open()
    // Operators approve once or for the conversation: always is a policy change.
    const asked = approvalIdOf(await write(plane, helper, 'first', null))
    expect(await plane.approvals.decide({ id: asked, caller: operator, decision: 'approve', scope: 'always' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: expect.stringContaining('only admins'),
    })
    expect(await plane.approvals.get(asked)).toMatchObject({ status: 'pending', decisions: [] })

    const decided = await plane.approvals.decide({ id: asked, caller: admin, decision: 'approve', scope: 'always' })
    expect(decided).toMatchObject({
      ok: true,
      approval: { status: 'approved' },
      granted: { scope: 'always', policy: { skill: 'shared_write', level: 'agent', subject: 'helper', decision: 'ALWAYS', createdBy: 'alice' } },
    })
    const policyId = decided.ok && decided.granted?.scope === 'always' ? decided.granted.policy.id : ''
    expect(plane.policies.list()).toMatchObject([{ id: policyId }])
    const set = await plane.audit.events.list({ subject: `policy:${policyId}`, limit: 5 })
    expect(set.items).toMatchObject([{ kind: 'policy.set', actor: { id: admin.id, name: 'alice' }, details: { decision: 'ALWAYS', approvalId: asked } }])
    expect((await plane.audit.events.list({ subject: `approval:${asked}`, kind: 'approval.grant_created', limit: 5 })).items).toMatchObject([
      { actor: { id: admin.id }, details: { scope: 'always', policy: { id: policyId } } },
    ])

    // Any conversation, any key of the agent: the policy says ALWAYS. Another agent still asks.
    expect(await write(plane, helper, 'a', 'c7')).toMatchObject({ ok: true })
    expect(await write(plane, helperTwin, 'b', null)).toMatchObject({ ok: true })
    expect(await write(plane, other, 'c', null)).toMatchObject({ ok: false, error: { code: 'approval_required' } })
  })

  it('refuses always where there is no agent or a stricter override would keep asking', async () => {
    const plane = await open()
    // A human's mutating call asks only when a policy says so; such a request has no agent.
    const ask = await plane.policies.set({ skill: 'shared_write', level: 'role', subject: 'operator', decision: 'ASK' }, admin, plane.now())
    expect(ask.ok).toBe(true)
    const human = approvalIdOf(await write(plane, operator, 'mine', 'c1'))
    expect(await plane.approvals.decide({ id: human, caller: admin, decision: 'approve', scope: 'always' })).toMatchObject({
      ok: false,
      code: 'invalid_input',
      message: `request ${human} was made for no agent: scope always is for an agent and a skill`,
    })

    await plane.policies.set({ skill: '*', level: 'global', decision: 'ASK' }, admin, plane.now())
    const agentAsk = approvalIdOf(await write(plane, helper, 'x', 'c1'))
    expect(await plane.approvals.decide({ id: agentAsk, caller: admin, decision: 'approve', scope: 'always' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('would not take effect'),
    })
    expect(plane.policies.list().filter((p) => p.level === 'agent')).toEqual([])
  })

  it('never reaches past one call of a dangerous skill', async () => {
    const plane = await open()
    const wipe = approvalIdOf(await plane.invoke('wipe_things', { count: 1 }, { caller: helper, conversationId: 'c1' }))
    for (const scope of ['conversation', 'always'] as const) {
      expect(await plane.approvals.decide({ id: wipe, caller: admin, decision: 'approve', scope })).toMatchObject({
        ok: false,
        code: 'denied',
        message: `scope ${scope} is for mutating skills only: a dangerous call of "wipe_things" is approved once, call by call`,
      })
    }
    expect(await plane.approvals.get(wipe)).toMatchObject({ status: 'pending', decisions: [] })

    // An ALWAYS override (set by hand) doesn't lift a dangerous skill above its floor.
    const always = await plane.policies.set({ skill: 'wipe_things', level: 'agent', subject: 'helper', decision: 'ALWAYS' }, admin, plane.now())
    expect(always.ok).toBe(true)
    const before = wipes.length
    expect(await plane.invoke('wipe_things', { count: 2 }, { caller: helper, conversationId: 'c1' })).toMatchObject({
      ok: false,
      error: { code: 'approval_required', details: { approvalsRequired: 2, sopRequired: true } },
    })
    expect(wipes.length).toBe(before)

    // A grant made while the skill was mutating stops covering it once its class is raised to dangerous.
    const { decided } = await granted(plane, 'conversation')
    expect(decided.ok && decided.granted?.scope).toBe('conversation')
    expect(await write(plane, helper, 'mutating', 'c1')).toMatchObject({ ok: true })
    await plane.skills.edit('shared_write', { class: 'dangerous' }, plane.now())
    const raised = await write(plane, helper, 'dangerous now', 'c1')
    expect(raised).toMatchObject({ ok: false, error: { code: 'approval_required', details: { approvalsRequired: 2, sopRequired: true } } })
    expect(await plane.audit.get(raised.callId)).toMatchObject({ grantId: null })
  })

  it('refuses bad scopes and minutes, scopes on a rejection, and conversation grants without a conversation', async () => {
    const plane = await open()
    const id = approvalIdOf(await write(plane, helper, 'x', 'c1'))
    const decide = (extra: Record<string, unknown>, decision: 'approve' | 'reject' = 'approve') =>
      plane.approvals.decide({ id, caller: operator, decision, ...extra } as Parameters<Skillplane['approvals']['decide']>[0])
    expect(await decide({ scope: 'forever' })).toMatchObject({
      code: 'invalid_input',
      message: 'scope must be one of once, conversation, always, got "forever"',
    })
    for (const minutes of [0, 1441, 1.5]) {
      expect(await decide({ scope: 'conversation', minutes })).toMatchObject({
        code: 'invalid_input',
        message: `minutes must be a whole number from 1 to 1440 (24 h), got ${minutes}`,
      })
    }
    expect(await decide({ minutes: 5 })).toMatchObject({ code: 'invalid_input', message: 'minutes applies to scope conversation only' })
    expect(await decide({ scope: 'once' }, 'reject')).toMatchObject({
      code: 'invalid_input',
      message: 'scope and minutes apply to approve only: a rejection is for this request',
    })
    // Viewers and agents can't grant either.
    expect(await plane.approvals.decide({ id, caller: viewer, decision: 'approve', scope: 'conversation' })).toMatchObject({ ok: false, code: 'denied' })
    expect(await plane.approvals.decide({ id, caller: other, decision: 'approve', scope: 'conversation' })).toMatchObject({ ok: false, code: 'denied' })
    expect(await plane.approvals.get(id)).toMatchObject({ status: 'pending', decisions: [] })

    const loose = approvalIdOf(await write(plane, helper, 'y', null))
    expect(await plane.approvals.decide({ id: loose, caller: operator, decision: 'approve', scope: 'conversation' })).toMatchObject({
      ok: false,
      code: 'invalid_input',
      message: `request ${loose} was made without a conversationId, so there is no conversation to grant: approve it once, or always`,
    })

    // A request no longer pending grants nothing.
    expect(await decide({}, 'reject')).toMatchObject({ ok: true })
    expect(await decide({ scope: 'conversation' })).toMatchObject({ ok: false, code: 'conflict', message: expect.stringContaining('is rejected') })
    expect((await plane.approvals.grants.list({ limit: 10 })).items).toEqual([])
  })

  it('grants nothing for an expired request', async () => {
    const plane = await open({ approvals: { expiresAfterMs: 1 } })
    const id = approvalIdOf(await write(plane, helper, 'x', 'c1'))
    await new Promise((r) => setTimeout(r, 5))
    expect(await plane.approvals.decide({ id, caller: operator, decision: 'approve', scope: 'conversation' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('is expired'),
    })
    expect((await plane.approvals.grants.list({ limit: 10 })).items).toEqual([])
  })
})
