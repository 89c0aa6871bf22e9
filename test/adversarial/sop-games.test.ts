import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../src/test-support/databases.js'
import { admin, agentCaller, approvalIdOf, openTestPlane, wipes } from '../../src/test-support/fixtures.js'
import { sopSigner } from '../../src/test-support/sop.js'
import type { Skillplane } from '../../src/agents/index.js'
import type { Caller } from '../../src/skill/skill-types.js'

const helper = agentCaller('helper')
const admin2: Caller = { kind: 'user', id: 'u-admin2', name: 'bob', role: 'admin' }

describe.each(databases)('SOP games on $name', (database) => {
  let plane: Skillplane | undefined
  afterEach(async () => {
    await plane?.close()
  })

  it('keeps a revocation for good: revoke A, register B, register A again is refused, and approvals citing A never count', async () => {
    const signer = sopSigner()
    plane = await openTestPlane(database, { sopKeys: [signer.config] })
    const a = signer.sop({ id: 'wipe', skills: ['wipe_things'] })
    const b = signer.sop({ id: 'wipe', skills: ['wipe_things'], body: '# Steps\n\n1. A stricter revision.\n' })
    expect(await plane.approvals.sops.register(a.document, a.signature, admin, plane.now())).toMatchObject({ ok: true })
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 7 }, { caller: helper }))
    await plane.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'wipe' })
    expect(await plane.approvals.decide({ id, caller: admin2, decision: 'approve', sopId: 'wipe' })).toMatchObject({
      ok: true,
      approval: { status: 'approved' },
    })

    expect(await plane.approvals.sops.revoke('wipe', admin, plane.now())).toBe(true)
    expect(await plane.approvals.sops.register(b.document, b.signature, admin, plane.now())).toMatchObject({ ok: true })
    expect(await plane.approvals.sops.register(a.document, a.signature, admin, plane.now())).toMatchObject({
      ok: false,
      message: expect.stringContaining('with this content was revoked'),
    })
    // B is what is registered now; the approvals cited A, so they count for nothing.
    expect((await plane.approvals.sops.list()).find((s) => s.id === 'wipe')).toMatchObject({ revokedAt: null })
    const before = wipes.length
    expect(await plane.invoke('wipe_things', { count: 7 }, { caller: helper, approval: { mode: 'use', approvalId: id } })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining('lacks valid approvals') },
    })
    expect(wipes.length).toBe(before)

    // Revoking B and re-registering either revision is refused too; a third revision works.
    expect(await plane.approvals.sops.revoke('wipe', admin, plane.now())).toBe(true)
    for (const sop of [a, b]) expect(await plane.approvals.sops.register(sop.document, sop.signature, admin, plane.now())).toMatchObject({ ok: false })
    const c = signer.sop({ id: 'wipe', skills: ['wipe_things'], body: '# Steps\n\n1. Third revision.\n' })
    expect(await plane.approvals.sops.register(c.document, c.signature, admin, plane.now())).toMatchObject({ ok: true })
    console.log(`SOP games on ${database.name}: revoked revisions re-registered 0 of 3 attempts, approvals citing a revoked revision counted 0`)
  })
})
