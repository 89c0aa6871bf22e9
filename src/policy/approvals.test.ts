import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { databases, tempDir, waitFor } from '../test-support/databases.js'
import { defineSkill } from '../skill/define-skill.js'
import { admin, agentCaller, approvalIdOf, openTestPlane, operator, viewer, wipes } from '../test-support/fixtures.js'
import { sopSigner } from '../test-support/sop.js'
import { openDatabase } from '../store/open-database.js'
import type { Skillplane } from '../agents/index.js'
import type { Caller, Envelope } from '../skill/skill-types.js'

const admin2: Caller = { kind: 'user', id: 'u-admin2', name: 'bob', role: 'admin' }
const helper = agentCaller('helper')

describe.each(databases)('approvals on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (...args: Parameters<typeof openTestPlane> extends [unknown, ...infer R] ? R : never) => {
    const plane = await openTestPlane(database, ...args)
    planes.push(plane)
    return plane
  }

  it('asks a human when an agent calls a mutating skill, then runs it exactly once for the same input', async () => {
    const plane = await open()
    const asked = await plane.invoke('write_thing', { value: 'v1' }, { caller: helper, conversationId: 'c1' })
    const id = approvalIdOf(asked)
    expect(asked).toMatchObject({ error: { details: { approvalsRequired: 1, approverRole: 'operator', sopRequired: false } } })
    expect(await plane.audit.get(asked.callId)).toMatchObject({ status: 'approval_required', approvalId: id })

    const early = await plane.invoke('write_thing', { value: 'v1' }, { caller: helper, approval: { mode: 'use', approvalId: id } })
    expect(early).toMatchObject({ ok: false, error: { code: 'approval_required', details: { approvalId: id } } })

    const decided = await plane.approvals.decide({ id, caller: operator, decision: 'approve', comment: 'looks fine' })
    expect(decided).toMatchObject({ ok: true, approval: { status: 'approved', decisions: [{ approver: { name: 'oscar' }, comment: 'looks fine' }] } })

    const changed = await plane.invoke('write_thing', { value: 'v2' }, { caller: helper, approval: { mode: 'use', approvalId: id } })
    expect(changed).toMatchObject({ ok: false, error: { code: 'denied', message: expect.stringContaining('other arguments') } })
    const ran = await plane.invoke('write_thing', { value: 'v1' }, { caller: helper, approval: { mode: 'use', approvalId: id } })
    expect(ran).toMatchObject({ ok: true, data: { stored: 'v1' } })
    expect(await plane.audit.get(ran.callId)).toMatchObject({ status: 'ok', approvalId: id })
    const again = await plane.invoke('write_thing', { value: 'v1' }, { caller: helper, approval: { mode: 'use', approvalId: id } })
    expect(again).toMatchObject({ ok: false, error: { code: 'denied', message: expect.stringContaining('runs at most once') } })

    const view = await plane.approvals.get(id)
    expect(view).toMatchObject({ status: 'executed', executedCallId: ran.callId, callId: asked.callId, conversationId: 'c1' })
    const history = await plane.audit.events.list({ subject: `approval:${id}`, limit: 10 })
    expect(history.items.map((e) => e.kind).reverse()).toEqual(['approval.created', 'approval.approval', 'approval.approved', 'approval.executed'])
    expect(history.items[0]).toMatchObject({ kind: 'approval.executed', callId: ran.callId })
  })

  it('runs one of many concurrent re-invokes of an approved request', async () => {
    const plane = await open()
    const id = approvalIdOf(await plane.invoke('write_thing', { value: 'once' }, { caller: helper }))
    await plane.approvals.decide({ id, caller: admin, decision: 'approve' })
    const results = await Promise.all(
      Array.from({ length: 8 }, () => plane.invoke('write_thing', { value: 'once' }, { caller: helper, approval: { mode: 'use', approvalId: id } })),
    )
    expect(results.filter((r) => r.ok)).toHaveLength(1)
    expect(results.filter((r) => !r.ok && r.error.code === 'denied')).toHaveLength(7)
  })

  it('enforces who may decide: no self-approval, no viewers or agents, no deciding twice or after the end', async () => {
    const plane = await open()
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 2 }, { caller: admin }))
    expect(await plane.approvals.decide({ id, caller: admin, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: 'the requester cannot approve their own request',
    })
    expect(await plane.approvals.decide({ id, caller: viewer, decision: 'approve' })).toMatchObject({ ok: false, code: 'denied' })
    expect(await plane.approvals.decide({ id, caller: operator, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: expect.stringContaining('needs admin'),
    })
    expect(await plane.approvals.decide({ id, caller: helper, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: expect.stringContaining('agent keys'),
    })
    expect(await plane.approvals.decide({ id: 'nope', caller: admin2, decision: 'approve' })).toMatchObject({ ok: false, code: 'not_found' })

    const mutating = approvalIdOf(await plane.invoke('write_thing', { value: 'x' }, { caller: helper }))
    expect(await plane.approvals.decide({ id: mutating, caller: operator, decision: 'approve' })).toMatchObject({ ok: true })
    expect(await plane.approvals.decide({ id: mutating, caller: admin, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('is approved'),
    })
    const rejected = approvalIdOf(await plane.invoke('write_thing', { value: 'y' }, { caller: helper }))
    expect(await plane.approvals.decide({ id: rejected, caller: operator, decision: 'reject', comment: 'no' })).toMatchObject({
      ok: true,
      approval: { status: 'rejected' },
    })
    expect(await plane.approvals.decide({ id: rejected, caller: admin, decision: 'approve' })).toMatchObject({ ok: false, code: 'conflict' })
    expect(await plane.invoke('write_thing', { value: 'y' }, { caller: helper, approval: { mode: 'use', approvalId: rejected } })).toMatchObject({
      ok: false,
      error: { code: 'approval_rejected' },
    })
    // Another caller can't use someone else's approval, even a second key of the same agent.
    const otherKey: Caller = { kind: 'agent', id: 'k-helper-2', name: 'helper-key-2', agentId: 'helper' }
    expect(await plane.invoke('write_thing', { value: 'x' }, { caller: otherKey, approval: { mode: 'use', approvalId: mutating } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('belongs to another caller') },
    })
  })

  it('needs two distinct admins citing a valid signed procedure for a dangerous call', async () => {
    const signer = sopSigner()
    const stranger = sopSigner('stranger')
    const plane = await open({ sopKeys: [signer.config] })
    const good = signer.sop({ id: 'wipe-small', skills: ['wipe_things'], constraints: { wipe_things: { properties: { count: { maximum: 5 } } } } })
    expect(await plane.approvals.sops.register(good.document, good.signature, admin, plane.now())).toMatchObject({
      ok: true,
      value: { id: 'wipe-small', keyName: 'ops-lead' },
    })
    const other = signer.sop({ id: 'other-skill', skills: ['write_thing'] })
    await plane.approvals.sops.register(other.document, other.signature, admin, plane.now())

    // Refused registrations: unknown key, edited after signing.
    const foreign = stranger.sop({ id: 'foreign', skills: ['wipe_things'] })
    expect(await plane.approvals.sops.register(foreign.document, foreign.signature, admin, plane.now())).toMatchObject({
      ok: false,
      message: expect.stringContaining('not registered in the config'),
    })
    const badSchema = signer.sop({ id: 'bad-schema', skills: ['wipe_things'], constraints: { wipe_things: { properties: { count: { type: 'nonsense' } } } } })
    expect(await plane.approvals.sops.register(badSchema.document, badSchema.signature, admin, plane.now())).toMatchObject({
      ok: false,
      message: expect.stringContaining('constraints.wipe_things: invalid JSON Schema'),
    })
    const tampered = good.document.replace('maximum":5', 'maximum":500')
    expect(await plane.approvals.sops.register(tampered, good.signature, admin, plane.now())).toMatchObject({
      ok: false,
      message: expect.stringContaining('changed after it was signed'),
    })

    const before = wipes.length
    const requester = agentCaller('helper')
    const asked = await plane.invoke('wipe_things', { count: 3 }, { caller: requester })
    const id = approvalIdOf(asked)
    expect(asked).toMatchObject({ error: { details: { approvalsRequired: 2, approverRole: 'admin', sopRequired: true } } })

    expect(await plane.approvals.decide({ id, caller: admin, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'invalid_input',
      message: expect.stringContaining('must cite a signed procedure'),
    })
    expect(await plane.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'other-skill' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: expect.stringContaining('does not cover skill "wipe_things"'),
    })
    expect(await plane.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'missing' })).toMatchObject({
      ok: false,
      message: 'no registered SOP "missing"',
    })
    const first = await plane.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'wipe-small' })
    expect(first).toMatchObject({ ok: true, approval: { status: 'pending', decisions: [{ sop: { id: 'wipe-small', hash: expect.any(String) } }] } })
    expect(await plane.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'wipe-small' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('already decided'),
    })
    expect(await plane.invoke('wipe_things', { count: 3 }, { caller: requester, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'approval_required' },
    })
    expect(await plane.approvals.decide({ id, caller: admin2, decision: 'approve', sopId: 'wipe-small' })).toMatchObject({
      ok: true,
      approval: { status: 'approved' },
    })
    expect(await plane.invoke('wipe_things', { count: 3 }, { caller: requester, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: true,
      data: { wiped: 3 },
    })
    expect(wipes.slice(before)).toEqual([3])

    // Outside the SOP's constraints, or citing a revoked SOP: refused.
    const big = approvalIdOf(await plane.invoke('wipe_things', { count: 50 }, { caller: requester }))
    expect(await plane.approvals.decide({ id: big, caller: admin, decision: 'approve', sopId: 'wipe-small' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/outside SOP "wipe-small" at \/count/),
    })
    await plane.approvals.sops.revoke('wipe-small', admin, plane.now())
    const small = approvalIdOf(await plane.invoke('wipe_things', { count: 1 }, { caller: requester }))
    expect(await plane.approvals.decide({ id: small, caller: admin, decision: 'approve', sopId: 'wipe-small' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('was revoked'),
    })
  })

  it('expires pending requests: deciding or running them afterwards is refused', async () => {
    const plane = await open({ approvals: { expiresAfterMs: 150 } })
    const id = approvalIdOf(await plane.invoke('write_thing', { value: 'late' }, { caller: helper }))
    await new Promise((r) => setTimeout(r, 200))
    expect(await plane.approvals.decide({ id, caller: operator, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('is expired'),
    })
    expect(await plane.invoke('write_thing', { value: 'late' }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'approval_expired' },
    })
    const kinds = (await plane.audit.events.list({ subject: `approval:${id}`, limit: 10 })).items.map((e) => e.kind)
    expect(kinds).toContain('approval.expired')
  })

  it('waits for the decision when asked to, and runs as soon as it is approved', async () => {
    const plane = await open()
    const waiting = plane.invoke('write_thing', { value: 'waited' }, { caller: helper, approval: { mode: 'ask', wait: true } })
    let id = ''
    await waitFor(async () => {
      const pending = await plane.approvals.list({ status: 'pending', limit: 1 })
      id = pending.items[0]?.id ?? ''
      return id !== ''
    })
    await plane.approvals.decide({ id, caller: operator, decision: 'approve' })
    const result = await waiting
    expect(result).toMatchObject({ ok: true, data: { stored: 'waited' } })
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'ok', approvalId: id })

    const rejected = plane.invoke('write_thing', { value: 'nope' }, { caller: helper, approval: { mode: 'ask', wait: 30 } })
    await waitFor(async () => (await plane.approvals.list({ status: 'pending', limit: 1 })).items.length === 1)
    const pendingId = (await plane.approvals.list({ status: 'pending', limit: 1 })).items[0]!.id
    await plane.approvals.decide({ id: pendingId, caller: operator, decision: 'reject' })
    expect(await rejected).toMatchObject({ ok: false, error: { code: 'approval_rejected' } })

    const timedOut = await plane.invoke('write_thing', { value: 'slow human' }, { caller: helper, approval: { mode: 'ask', wait: 1 } })
    expect(timedOut).toMatchObject({ ok: false, error: { code: 'approval_required', message: expect.stringContaining('no decision within 1 s') } })
  })

  it('never waits longer than the configured bound, whatever the caller asks', async () => {
    const plane = await open({ approvals: { waitTimeoutMs: 300 } })
    // Uncapped, this would wait an hour and the test's own timeout would fail it.
    const result = await plane.invoke('write_thing', { value: 'x' }, { caller: helper, approval: { mode: 'ask', wait: 3600 } })
    expect(result).toMatchObject({ ok: false, error: { code: 'approval_required', message: expect.stringContaining('no decision within 1 s') } })
  })

  it('refuses approvals whose rows were edited in the database', async () => {
    const location = await database.create()
    const plane = await open({}, location)
    const id = approvalIdOf(await plane.invoke('write_thing', { value: 'small' }, { caller: helper }))
    await plane.approvals.decide({ id, caller: operator, decision: 'approve' })
    const other = approvalIdOf(await plane.invoke('write_thing', { value: 'other' }, { caller: helper }))

    const store = await openDatabase(location)
    // Point the approved request at other arguments, and forge an approval without a valid seal.
    const otherRow = await store.db.selectFrom('approvals').selectAll().where('id', '=', other).executeTakeFirstOrThrow()
    await store.db.updateTable('approvals').set({ input_hash: otherRow.input_hash }).where('id', '=', id).execute()
    await store.db
      .insertInto('approval_decisions')
      .values({
        id: 'forged',
        approval_id: other,
        approver_id: 'u-x',
        approver_name: 'mallory',
        approver_role: 'admin',
        decision: 'approve',
        comment: null,
        sop_id: null,
        sop_hash: null,
        created_at: 'x',
        seal: '00'.repeat(32),
      })
      .execute()
    await store.db.updateTable('approvals').set({ status: 'approved' }).where('id', '=', other).execute()
    await store.close()

    expect(await plane.invoke('write_thing', { value: 'other' }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('integrity check') },
    })
    expect(await plane.invoke('write_thing', { value: 'other' }, { caller: helper, approval: { mode: 'use', approvalId: other } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('lacks valid approvals') },
    })
  })

  it('refuses a replay after the row is edited back to approved, and an edited stored input', async () => {
    const location = await database.create()
    const plane = await open({}, location)
    const id = approvalIdOf(await plane.invoke('write_thing', { value: 'once' }, { caller: helper }))
    await plane.approvals.decide({ id, caller: operator, decision: 'approve' })
    expect(await plane.invoke('write_thing', { value: 'once' }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({ ok: true })
    const shown = approvalIdOf(await plane.invoke('write_thing', { value: 'shown' }, { caller: helper }))

    const store = await openDatabase(location)
    await store.db.updateTable('approvals').set({ status: 'approved', executed_call_id: null }).where('id', '=', id).execute()
    await store.db.updateTable('approvals').set({ input: '{"value":"harmless"}' }).where('id', '=', shown).execute()
    await store.close()

    expect(await plane.invoke('write_thing', { value: 'once' }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('already used') },
    })
    expect(await plane.approvals.decide({ id: shown, caller: operator, decision: 'approve' })).toMatchObject({ ok: false, code: 'tampered' })
  })

  it('counts one key once whatever name it decides under, and spends nothing on a waiting caller that left', async () => {
    const signer = sopSigner()
    const plane = await open({ sopKeys: [signer.config] })
    const waited = await plane.invoke(
      'write_thing',
      { value: 'wait' },
      { caller: helper, approval: { mode: 'ask', wait: 30 }, signal: AbortSignal.timeout(300) },
    )
    expect(waited).toMatchObject({ ok: false, error: { code: 'unavailable', message: 'the call was cancelled by its caller' } })
    expect(await plane.approvals.get((await plane.audit.get(waited.callId))!.approvalId!)).toMatchObject({ status: 'pending' })

    const sop = signer.sop({ id: 'wipe', skills: ['wipe_things'] })
    await plane.approvals.sops.register(sop.document, sop.signature, admin, plane.now())
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 1 }, { caller: helper }))
    const carol: Caller = { kind: 'user', id: 'k-carol-1', name: 'carol', role: 'admin' }
    expect(await plane.approvals.decide({ id, caller: carol, decision: 'approve', sopId: 'wipe' })).toMatchObject({ ok: true })
    // The same identity under another display name is still one approver.
    expect(await plane.approvals.decide({ id, caller: { ...carol, name: 'Carol (laptop)' }, decision: 'approve', sopId: 'wipe' })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining('already decided'),
    })
    expect(await plane.approvals.get(id)).toMatchObject({ status: 'pending' })
  })

  it('tells approvers apart by identity, never by a display name that can look alike', async () => {
    const signer = sopSigner()
    const plane = await open({ sopKeys: [signer.config] })
    const sop = signer.sop({ id: 'wipe', skills: ['wipe_things'] })
    await plane.approvals.sops.register(sop.document, sop.signature, admin, plane.now())
    // A requester's look-alike name (Cyrillic "а") is not the requester, and two admins' names that
    // look the same do not make them one person: keys are the identity.
    const requester: Caller = { kind: 'user', id: 'k-alice', name: 'alice', role: 'admin' }
    const lookAlike: Caller = { kind: 'user', id: 'k-mallory', name: '\u0430lice', role: 'admin' }
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 3 }, { caller: requester }))
    expect(await plane.approvals.decide({ id, caller: { ...requester, name: 'someone else' }, decision: 'approve', sopId: 'wipe' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: 'the requester cannot approve their own request',
    })
    expect(await plane.approvals.decide({ id, caller: lookAlike, decision: 'approve', sopId: 'wipe' })).toMatchObject({
      ok: true,
      approval: { status: 'pending' },
    })
    const twin: Caller = { kind: 'user', id: 'k-alice-2', name: 'alice', role: 'admin' }
    expect(await plane.approvals.decide({ id, caller: twin, decision: 'approve', sopId: 'wipe' })).toMatchObject({ ok: true, approval: { status: 'approved' } })
    expect(await plane.invoke('wipe_things', { count: 3 }, { caller: requester, approval: { mode: 'use', approvalId: id } })).toMatchObject({ ok: true })
  })

  it('re-checks at run time: an SOP revoked after approval, or re-registered after revocation, does not count', async () => {
    const signer = sopSigner()
    const plane = await open({ sopKeys: [signer.config] })
    const sop = signer.sop({ id: 'wipe', skills: ['wipe_things'] })
    await plane.approvals.sops.register(sop.document, sop.signature, admin, plane.now())
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 2 }, { caller: helper }))
    await plane.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'wipe' })
    expect(await plane.approvals.decide({ id, caller: admin2, decision: 'approve', sopId: 'wipe' })).toMatchObject({
      ok: true,
      approval: { status: 'approved' },
    })
    await plane.approvals.sops.revoke('wipe', admin, plane.now())
    expect(await plane.invoke('wipe_things', { count: 2 }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('was revoked') },
    })
    expect(await plane.approvals.sops.register(sop.document, sop.signature, admin, plane.now())).toMatchObject({
      ok: false,
      message: expect.stringContaining('was revoked'),
    })
  })

  it('refuses an approval used after expiry, for another agent, or under stricter rules', async () => {
    const location = await database.create()
    const plane = await open({ approvals: { expiresAfterMs: 400 } }, location)
    const id = approvalIdOf(await plane.invoke('write_thing', { value: 'x' }, { caller: helper }))
    await plane.approvals.decide({ id, caller: operator, decision: 'approve' })
    await new Promise((r) => setTimeout(r, 450))
    expect(await plane.invoke('write_thing', { value: 'x' }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'approval_expired' },
    })

    await plane.policies.set({ skill: 'write_thing', level: 'role', subject: 'operator', decision: 'ASK' }, admin, plane.now())
    const forAgent = approvalIdOf(await plane.invoke('write_thing', { value: 'y' }, { caller: operator, agent: 'helper' }))
    await plane.approvals.decide({ id: forAgent, caller: admin, decision: 'approve' })
    expect(await plane.invoke('write_thing', { value: 'y' }, { caller: operator, approval: { mode: 'use', approvalId: forAgent } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('was made for agent helper') },
    })
    await plane.close()

    // The skill became dangerous after one operator approved it: that approval no longer suffices.
    const stricter = await open(
      {
        approvals: { expiresAfterMs: 60_000 },
        skills: [
          defineSkill({
            key: 'write_thing',
            description: 'now dangerous',
            class: 'mutating',
            agents: ['Helper'],
            input: z.object({ value: z.string() }),
            run: () => 'ran',
          }),
        ],
      },
      location,
    )
    const old = approvalIdOf(await stricter.invoke('write_thing', { value: 'z' }, { caller: helper }))
    await stricter.approvals.decide({ id: old, caller: operator, decision: 'approve' })
    await stricter.close()
    const reclassified = await open(
      {
        approvals: { expiresAfterMs: 60_000 },
        skills: [
          defineSkill({
            key: 'write_thing',
            description: 'now dangerous',
            class: 'dangerous',
            agents: ['Helper'],
            input: z.object({ value: z.string() }),
            run: () => 'ran',
          }),
        ],
      },
      location,
    )
    expect(await reclassified.invoke('write_thing', { value: 'z' }, { caller: helper, approval: { mode: 'use', approvalId: old } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('weaker rules') },
    })
  })

  it('refuses to start with an approval secret other than the one the database was sealed with', async () => {
    const location = await database.create()
    await (await open({}, location)).close()
    planes.length = 0
    const otherDir = tempDir()
    // The same secrets key, so that only the approval secret differs.
    copyFileSync(join(location.dataDir, 'secrets-key'), join(otherDir, 'secrets-key'))
    const mismatch = database.name === 'postgres' ? { dataDir: otherDir, databaseUrl: location.databaseUrl } : location
    if (database.name === 'sqlite') writeFileSync(join(location.dataDir, 'approval-secret'), 'ab'.repeat(32))
    await expect(openTestPlane(database, {}, mismatch)).rejects.toThrow(/approval secret in .* is not the one this database's approvals are sealed with/)
  })

  it('keeps pending requests across a restart, still decidable and runnable', async () => {
    const location = await database.create()
    const first = await open({}, location)
    const id = approvalIdOf(await first.invoke('write_thing', { value: 'persist' }, { caller: helper }))
    await first.close()
    const second = await open({}, location)
    expect(await second.approvals.get(id)).toMatchObject({ status: 'pending' })
    expect(await second.approvals.decide({ id, caller: operator, decision: 'approve' })).toMatchObject({ ok: true })
    expect(await second.invoke('write_thing', { value: 'persist' }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({ ok: true })
  })

  it('applies policy overrides: strictest wins, agents can be trusted, dangerous keeps its floor; changes are audited', async () => {
    const plane = await open()
    const set = (input: Parameters<Skillplane['policies']['set']>[0]) => plane.policies.set(input, admin, plane.now())
    const code = (r: Envelope) => (r.ok ? 'ok' : r.error.code)

    expect(code(await plane.invoke('write_thing', { value: 'a' }, { caller: operator }))).toBe('ok')
    const ask = await set({ skill: 'write_thing', level: 'role', subject: 'operator', decision: 'ASK' })
    expect(ask).toMatchObject({ ok: true, policy: { level: 'role', subject: 'operator', decision: 'ASK' } })
    expect(code(await plane.invoke('write_thing', { value: 'a' }, { caller: operator }))).toBe('approval_required')
    expect(code(await plane.invoke('write_thing', { value: 'a' }, { caller: admin }))).toBe('ok')

    expect(await set({ skill: 'write_thing', level: 'agent', subject: 'Helper', decision: 'ALWAYS' })).toMatchObject({
      ok: true,
      policy: { subject: 'helper' },
    })
    expect(code(await plane.invoke('write_thing', { value: 'a' }, { caller: helper }))).toBe('ok')
    await set({ skill: '*', level: 'global', decision: 'DENY' })
    expect(code(await plane.invoke('write_thing', { value: 'a' }, { caller: helper }))).toBe('denied')
    expect(code(await plane.invoke('echo', { message: 'x' }, { caller: viewer }))).toBe('denied')
    const deny = plane.policies.list().find((p) => p.level === 'global')!
    await plane.policies.clear(deny.id, admin)
    expect(code(await plane.invoke('echo', { message: 'x' }, { caller: viewer }))).toBe('ok')

    await set({ skill: 'wipe_things', level: 'user', subject: 'alice', decision: 'ALWAYS' })
    expect(code(await plane.invoke('wipe_things', {}, { caller: admin }))).toBe('approval_required')

    expect(await set({ skill: 'write_thing', level: 'agent', subject: 'ghost', decision: 'ASK' })).toMatchObject({
      ok: false,
      message: 'unknown agent "ghost"',
    })
    expect(await set({ skill: 'Bad-Key', level: 'global', decision: 'ASK' })).toMatchObject({ ok: false })
    expect(await set({ skill: 'x', level: 'role', subject: 'root', decision: 'ASK' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('role must be one of'),
    })

    const kinds = (await plane.audit.events.list({ kind: 'policy.set', limit: 20 })).items.map((e) => e.details.decision)
    expect(kinds.sort()).toEqual(['ALWAYS', 'ALWAYS', 'ASK', 'DENY'])
    expect((await plane.audit.events.list({ kind: 'policy.cleared', limit: 5 })).items).toHaveLength(1)
  })

  it('lets a skill raise a call to ASK with a reason approvers see', async () => {
    const plane = await open()
    expect(await plane.invoke('bulk_delete', { ids: ['a', 'b'] }, { caller: operator })).toMatchObject({ ok: true, data: { deleted: 2 } })
    const many = Array.from({ length: 12 }, (_, i) => `id-${i}`)
    const asked = await plane.invoke('bulk_delete', { ids: many }, { caller: operator })
    expect(asked).toMatchObject({ ok: false, error: { code: 'approval_required', details: { reason: 'a batch of 12 items exceeds the limit of 10' } } })
    expect(await plane.approvals.get(approvalIdOf(asked))).toMatchObject({
      reason: 'a batch of 12 items exceeds the limit of 10',
      requester: { name: 'oscar' },
    })
  })

  it('posts webhook events for created and decided requests, retrying a failing endpoint', async () => {
    const received: Array<{ type: string; approval: { id: string; status: string } }> = []
    let failuresLeft = 1
    const server = createServer(async (req: IncomingMessage, res) => {
      let body = ''
      for await (const chunk of req) body += chunk
      if (failuresLeft-- > 0) {
        res.statusCode = 503
        return res.end()
      }
      received.push(JSON.parse(body))
      res.end('ok')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      const plane = await open({ approvals: { webhookUrl: url } })
      const id = approvalIdOf(await plane.invoke('write_thing', { value: 'hook' }, { caller: helper }))
      await plane.approvals.decide({ id, caller: operator, decision: 'approve' })
      await waitFor(() => received.length === 2, 15_000)
      expect(received.map((e) => [e.type, e.approval.id, e.approval.status]).sort()).toEqual([
        ['approval.created', id, 'pending'],
        ['approval.decided', id, 'approved'],
      ])
    } finally {
      server.close()
    }
  })
})
