import { afterEach, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, counted, hangAborts, openTestPlane, operator, testSkills, viewer } from '../test-support/fixtures.js'
import { z } from 'zod'
import { defineSkill } from '../skill/define-skill.js'
import { SkillError } from './skill-error.js'
import type { Skillplane } from '../agents/index.js'
import { openDatabase } from '../store/open-database.js'
import { AuditRepository } from '../store/audit-repository.js'

describe.each(databases)('invoke pipeline on $name', (database) => {
  let plane: Skillplane
  const others: Skillplane[] = []
  afterEach(async () => {
    await Promise.all([plane?.close(), ...others.splice(0).map((p) => p.close())])
  })

  it('runs a skill, applies schema defaults and writes one finished audit row', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('echo', { message: 'hi' }, { caller: admin, conversationId: 'conv-1' })
    expect(result).toEqual({ ok: true, data: { message: 'hi', count: 1 }, callId: expect.any(String) })
    const row = await plane.audit.get(result.callId)
    expect(row).toMatchObject({
      skill: 'echo',
      status: 'ok',
      caller: { id: 'u-admin', name: 'alice', role: 'admin' },
      conversationId: 'conv-1',
      error: null,
    })
    expect(row!.input).toEqual({ message: 'hi' })
    expect(row!.result).toEqual({ message: 'hi', count: 1 })
    expect(row!.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('validates raw JSON Schema input with ajv, including defaults', async () => {
    plane = await openTestPlane(database)
    expect(await plane.invoke('json_schema_skill', { name: 'ab' }, { caller: admin })).toMatchObject({ ok: true, data: { name: 'ab', size: 3 } })
    const bad = await plane.invoke('json_schema_skill', { name: 'a', extra: 1 }, { caller: admin })
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    if (bad.ok) throw new Error('unreachable')
    expect(bad.error.details?.issues).toEqual(
      expect.arrayContaining([
        { path: '/name', rule: 'minLength', message: 'must NOT have fewer than 2 characters' },
        { path: '/extra', rule: 'additionalProperties', message: 'must NOT have additional properties' },
      ]),
    )
  })

  it('refuses an unknown skill with not_found and audits it', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('no_such_skill', {}, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found', message: 'no skill with key "no_such_skill"' } })
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'error', error: { code: 'not_found' } })
  })

  it('names the JSON path and the rule of invalid input', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('echo', { message: '', count: 0 }, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    if (result.ok) throw new Error('unreachable')
    expect(result.error.message).toContain('/message')
    expect(result.error.message).toContain('/count')
    expect(result.error.message).toContain('too_small')
    expect(result.error.details?.issues).toEqual([
      expect.objectContaining({ path: '/message', rule: 'too_small' }),
      expect.objectContaining({ path: '/count', rule: 'too_small' }),
    ])
  })

  it('refuses input that is not JSON', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('echo', { message: 'x', count: 10n }, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'input must be a JSON value' } })
  })

  it('turns a schema that throws while validating into invalid_input, audited', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('picky', { json: '{not json' }, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('input validation of skill "picky" failed') } })
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'error', error: { code: 'invalid_input' } })
  })

  it('never starts the executor of a call whose caller already went away', async () => {
    plane = await openTestPlane(database)
    const gone = AbortSignal.abort(new Error('client closed the connection'))
    const result = await plane.invoke('counted', { tag: 'pre-aborted' }, { caller: admin, signal: gone })
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable', message: 'the call was cancelled by its caller' } })
    await new Promise((r) => setImmediate(r))
    expect(counted).not.toContain('pre-aborted')
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'interrupted' })
  })

  it('audits text with NUL characters without failing the calls batched with it', async () => {
    plane = await openTestPlane(database)
    const [bad, good, unknown] = await Promise.all([
      plane.invoke('counted', { tag: 'a' }, { caller: admin, conversationId: 'conv\u0000x' }),
      plane.invoke('counted', { tag: 'b' }, { caller: admin }),
      plane.invoke('no\u0000such', {}, { caller: admin }),
    ])
    expect(bad).toMatchObject({ ok: true })
    expect(good).toMatchObject({ ok: true })
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } })
    expect(await plane.audit.get(bad.callId)).toMatchObject({ status: 'ok', conversationId: 'conv\uFFFDx' })
    expect(await plane.audit.get(unknown.callId)).toMatchObject({ skill: 'no\uFFFDsuch' })
  })

  it('turns a throwing executor into executor_error with its message', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('explode', {}, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'executor_error', message: 'skill "explode" failed: the disk is on fire' } })
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'error', error: { code: 'executor_error' } })
  })

  it('never throws, even for a result whose getter throws or an output schema that throws', async () => {
    const trap = defineSkill({
      key: 'trap',
      description: 'A result that throws when read',
      class: 'safe',
      input: z.object({}),
      run: () => ({
        get secret(): string {
          throw new Error('read me not')
        },
      }),
    })
    const refined = defineSkill({
      key: 'refined',
      description: 'An output schema that throws a SkillError',
      class: 'safe',
      input: z.object({}),
      output: z.object({ n: z.number() }).refine(() => {
        throw new SkillError('denied', 'the output may not leave')
      }),
      run: () => ({ n: 1 }),
    })
    plane = await openTestPlane(database, { skills: [...testSkills(), trap, refined] })
    const read = await plane.invoke('trap', {}, { caller: admin })
    expect(read).toMatchObject({ ok: false, error: { code: 'executor_error', message: 'skill "trap" failed: read me not' } })
    expect(await plane.audit.get(read.callId)).toMatchObject({ status: 'error', error: { code: 'executor_error' } })
    const denied = await plane.invoke('refined', {}, { caller: admin })
    expect(denied).toMatchObject({ ok: false, error: { code: 'denied', message: 'the output may not leave' } })
    expect(await plane.audit.get(denied.callId)).toMatchObject({ status: 'denied' })
  })

  it('times out a hanging executor at its deadline and aborts its signal', async () => {
    plane = await openTestPlane(database)
    const before = hangAborts.length
    const result = await plane.invoke('hang', {}, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'timeout', message: 'skill "hang": the call exceeded its 100 ms deadline' } })
    expect(hangAborts.slice(before)).toEqual(['TimeoutError'])
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'timeout', error: { code: 'timeout' } })
  })

  it('times out an executor that fails later without an unhandled rejection', async () => {
    plane = await openTestPlane(database)
    expect(await plane.invoke('late_fail', {}, { caller: admin })).toMatchObject({ ok: false, error: { code: 'timeout' } })
    // Vitest fails the run on an unhandled rejection: give the late failure time to happen.
    await new Promise((r) => setTimeout(r, 200))
  })

  it('refuses output that violates the output schema', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('bad_output', {}, { caller: admin })
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_output' } })
    if (result.ok) throw new Error('unreachable')
    expect(result.error.message).toContain('/count')
  })

  it('records nested ctx.invoke calls with their parent call id', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('parent_call', {}, { caller: admin })
    expect(result).toMatchObject({ ok: true, data: { child: { ok: true, data: { message: 'from parent', count: 1 } } } })
    const children = await plane.audit.query({ parentCallId: result.callId, limit: 10 })
    expect(children.items).toHaveLength(1)
    expect(children.items[0]).toMatchObject({ skill: 'echo', status: 'ok', caller: { id: 'u-admin' } })
  })

  it("hands out ctx's functions bound, so an executor can take them apart", async () => {
    const progress: number[] = []
    const detached = defineSkill({
      key: 'detached',
      description: 'Uses ctx.invoke, ctx.progress and ctx.settings taken off ctx',
      class: 'safe',
      run: async (_input, ctx) => {
        const { invoke, progress: report, settings } = ctx
        report({ progress: 1 })
        const child = await invoke('echo', { message: 'detached' })
        let missing = ''
        try {
          settings.get('absent')
        } catch (error) {
          missing = (error as Error).message
        }
        return { child, missing }
      },
    })
    plane = await openTestPlane(database, { skills: [...testSkills(), detached] })
    const result = await plane.invoke('detached', {}, { caller: admin, onProgress: (update) => progress.push(update.progress) })
    expect(result).toMatchObject({
      ok: true,
      data: { child: { ok: true, data: { message: 'detached' } }, missing: 'skill "detached" did not declare the setting "absent": list it in its settings' },
    })
    expect(progress).toEqual([1])
    expect((await plane.audit.query({ parentCallId: result.callId, limit: 10 })).items).toHaveLength(1)
  })

  it('bounds the depth of nested calls', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('recurse', {}, { caller: admin })
    expect(JSON.stringify(result)).toContain('nested calls are limited to a depth of 8')
  })

  it('authorises by role and class', async () => {
    plane = await openTestPlane(database)
    const outcome = async (caller: typeof admin, key: string, input: object = {}) => {
      const r = await plane.invoke(key, input, { caller })
      return r.ok ? 'ok' : r.error.code
    }
    expect(await outcome(viewer, 'echo', { message: 'x' })).toBe('ok')
    expect(await outcome(viewer, 'write_thing', { value: 'x' })).toBe('denied')
    expect(await outcome(operator, 'write_thing', { value: 'x' })).toBe('ok')
    expect(await outcome(admin, 'write_thing', { value: 'x' })).toBe('ok')
    expect(await outcome(operator, 'wipe_things')).toBe('denied')
    expect(await outcome(admin, 'wipe_things')).toBe('approval_required')
    const denied = await plane.audit.query({ status: 'denied', limit: 10 })
    expect(denied.items.map((r) => r.skill).sort()).toEqual(['wipe_things', 'write_thing'])
    expect(denied.items.find((r) => r.skill === 'wipe_things')!.error?.message).toBe('role operator may not run dangerous skill "wipe_things"')
  })

  it('limits an agent key to its bound skills; mutating ones wait for approval', async () => {
    plane = await openTestPlane(database)
    const helper = agentCaller('helper')
    expect(await plane.invoke('echo', { message: 'x' }, { caller: helper })).toMatchObject({ ok: true })
    // An unbound skill looks unknown to the agent, before its schema can tell anything.
    const unbound = await plane.invoke('explode', { wrong: true }, { caller: helper })
    expect(unbound).toMatchObject({ ok: false, error: { code: 'not_found', message: 'no skill with key "explode"' } })
    const mutating = await plane.invoke('write_thing', { value: 'x' }, { caller: helper })
    expect(mutating).toMatchObject({ ok: false, error: { code: 'approval_required', details: { approvalsRequired: 1, approverRole: 'operator' } } })
    const impersonating = await plane.invoke('echo', { message: 'x' }, { caller: helper, agent: 'Other' })
    expect(impersonating).toMatchObject({ ok: false, error: { code: 'denied' } })
    const row = await plane.audit.get(mutating.callId)
    expect(row).toMatchObject({ caller: { kind: 'agent', role: 'agent' }, agent: 'helper', status: 'approval_required' })
  })

  it('answers a check call without running it or spending its approval; only a filed request is audited', async () => {
    plane = await openTestPlane(database)
    const helper = agentCaller('helper')
    const check = { caller: helper, approval: { mode: 'check' } } as const
    const safe = await plane.invoke('echo', { message: 'x' }, check)
    expect(safe).toEqual({ ok: true, data: { wouldRun: true, approvalId: null }, callId: expect.any(String) })
    expect(await plane.audit.get(safe.callId)).toBeUndefined()
    const filed = await plane.invoke('write_thing', { value: 'x' }, check)
    const id = approvalIdOf(filed)
    expect(await plane.audit.get(filed.callId)).toMatchObject({ status: 'approval_required', approvalId: id })
    // Checked again, the open request is found, not filed twice, and this look is not audited.
    const pending = await plane.invoke('write_thing', { value: 'x' }, check)
    expect(pending).toMatchObject({
      ok: false,
      error: { code: 'approval_required', message: `approval request ${id} is still pending`, details: { approvalId: id } },
    })
    expect(await plane.audit.get(pending.callId)).toBeUndefined()
    expect((await plane.approvals.list({ skill: 'write_thing', limit: 5 })).items).toHaveLength(1)
    await plane.approvals.decide({ id, caller: admin, decision: 'approve' })
    const ready = await plane.invoke('write_thing', { value: 'x' }, check)
    expect(ready).toMatchObject({ ok: true, data: { wouldRun: true, approvalId: id } })
    expect(await plane.audit.get(ready.callId)).toBeUndefined()
    // Looking did not spend it: it runs the exact input it was approved for, once.
    const use = { caller: helper, approval: { mode: 'use', approvalId: id } } as const
    expect(await plane.invoke('write_thing', { value: 'y' }, use)).toMatchObject({ ok: false, error: { code: 'denied' } })
    const ran = await plane.invoke('write_thing', { value: 'x' }, use)
    expect(ran).toMatchObject({ ok: true, data: { stored: 'x' } })
    expect(await plane.audit.get(ran.callId)).toMatchObject({ status: 'ok', approvalId: id })
    expect(await plane.invoke('write_thing', { value: 'x' }, use)).toMatchObject({ ok: false, error: { code: 'denied' } })
  })

  it('applies bindings when a user acts for an agent by name or alias', async () => {
    plane = await openTestPlane(database)
    expect(await plane.invoke('echo', { message: 'x' }, { caller: admin, agent: 'h' })).toMatchObject({ ok: true })
    expect(await plane.invoke('explode', {}, { caller: admin, agent: 'Helper' })).toMatchObject({ ok: false, error: { code: 'denied' } })
    expect(await plane.invoke('echo', { message: 'x' }, { caller: admin, agent: 'Nobody' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: 'unknown agent "Nobody"' },
    })
  })

  it('refuses disabled skills, and host-scope skills naming no edge or an unknown one', async () => {
    plane = await openTestPlane(database)
    await plane.skills.edit('echo', { enabled: false }, plane.now())
    expect(await plane.invoke('echo', { message: 'x' }, { caller: admin })).toMatchObject({ ok: false, error: { code: 'unavailable' } })
    expect(await plane.invoke('remote_thing', {}, { caller: admin, edgeId: 'edge-1' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: 'no enrolled edge "edge-1"' },
    })
    expect(await plane.invoke('remote_thing', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: 'skill "remote_thing" runs on an edge: name one with edgeId (no enrolled edge offers it)' },
    })
    expect(await plane.invoke('echo', { message: 'x' }, { caller: admin, edgeId: 'edge-1' })).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    })
  })

  it('redacts secrets in audited input and results', async () => {
    plane = await openTestPlane(database)
    const result = await plane.invoke('login', { user: 'bob', pin: '1234', password: 'hunter2', nested: { apiKey: 'k-9', note: 'keep' } }, { caller: admin })
    expect(result).toMatchObject({ ok: true, data: { user: 'bob', sessionToken: 'tok-123' } })
    const row = await plane.audit.get(result.callId)
    expect(row!.input).toEqual({
      user: 'bob',
      pin: '[REDACTED]',
      password: '[REDACTED]',
      nested: { apiKey: '[REDACTED]', note: 'keep' },
    })
    expect(row!.result).toEqual({ user: 'bob', sessionToken: '[REDACTED]', ok: true })
    for (const secret of ['1234', 'hunter2', 'k-9', 'tok-123']) expect(JSON.stringify(row)).not.toContain(secret)
  })

  it('scrubs input secrets an executor echoes into its result or error message', async () => {
    plane = await openTestPlane(database)
    const ok = await plane.invoke('leaky', { passphrase: 'correct horse' }, { caller: admin })
    expect(ok).toMatchObject({ ok: true, data: { echoed: 'you sent correct horse' } })
    const row = await plane.audit.get(ok.callId)
    expect(row!.result).toEqual({ echoed: 'you sent [REDACTED]', nested: [{ again: '[REDACTED]' }] })
    const failed = await plane.invoke('leaky', { passphrase: 'correct horse', fail: true }, { caller: admin })
    expect(failed).toMatchObject({ ok: false, error: { code: 'executor_error' } })
    expect((await plane.audit.get(failed.callId))!.error?.message).toBe('skill "leaky" failed: passphrase [REDACTED] rejected')
  })

  it('caps large results in the audit row with a truncation marker, returning them whole', async () => {
    plane = await openTestPlane(database, { audit: { maxResultBytes: 1000 } })
    const result = await plane.invoke('big_result', { size: 5000 }, { caller: admin })
    expect(result.ok && (result.data as { text: string }).text.length).toBe(5000)
    const row = await plane.audit.get(result.callId)
    expect(row!.resultTruncated).toBe(true)
    expect(Buffer.byteLength(row!.result as string)).toBeLessThanOrEqual(1000)
    expect((row!.result as string).startsWith('{"text":"éé')).toBe(true)
  })

  it('marks a call racing shutdown as interrupted, not lost', async () => {
    const location = await database.create()
    plane = await openTestPlane(database, {}, location)
    const pending = plane.invoke('slow', { ms: 30_000 }, { caller: admin })
    await waitFor(async () => (await plane.audit.query({ status: 'running', limit: 1 })).items.length === 1)
    const closing = plane.close()
    const late = await plane.invoke('echo', { message: 'too late' }, { caller: admin })
    const result = await pending
    await closing
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringContaining('shutting down') } })
    expect(late).toMatchObject({ ok: false, error: { code: 'unavailable' } })
    plane = await openTestPlane(database, {}, location)
    expect(plane.status.recoveredCalls).toBe(0)
    expect(await plane.audit.get(result.callId)).toMatchObject({ status: 'interrupted', error: { code: 'unavailable' } })
    expect(await plane.audit.get(late.callId)).toMatchObject({ status: 'interrupted', skill: 'echo' })
  })

  it("marks rows a dead manager left running as interrupted at start-up, never a live peer's", async () => {
    const location = await database.create()
    const peer = await openTestPlane(database, {}, location)
    others.push(peer)
    const peerCall = peer.invoke('slow', { ms: 1_000 }, { caller: admin })
    await waitFor(async () => (await peer.audit.query({ status: 'running', limit: 1 })).items.length === 1)
    // A crashed manager's leftovers: a running row whose manager has no heartbeat.
    const store = await openDatabase(location)
    const audit = new AuditRepository(store.db)
    await audit.upsertMany([{ ...(await audit.query({ limit: 1 })).items[0]!, call_id: '00000000000000000000000000', manager_id: 'dead-manager' }])
    await store.close()

    plane = await openTestPlane(database, {}, location)
    expect(plane.status.recoveredCalls).toBe(1)
    expect(await plane.audit.get('00000000000000000000000000')).toMatchObject({ status: 'interrupted', error: { code: 'unavailable' } })
    expect(await peerCall).toMatchObject({ ok: true })
    expect(await plane.audit.get((await peerCall).callId)).toMatchObject({ status: 'ok' })
  })
})
