import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../src/test-support/databases.js'
import { admin, agentCaller, approvalIdOf, openTestPlane, operator } from '../../src/test-support/fixtures.js'
import { sopSigner } from '../../src/test-support/sop.js'
import type { Skillplane } from '../../src/agents/index.js'
import type { Caller } from '../../src/skill/skill-types.js'
import { rounds } from './campaign.js'

const helper = agentCaller('helper')
const admin2: Caller = { kind: 'user', id: 'u-admin2', name: 'bob', role: 'admin' }
const admin3: Caller = { kind: 'user', id: 'u-admin3', name: 'carol', role: 'admin' }

// Two managers share one database and decide the same requests at the same moment.
describe.each(databases)('approval races on $name (two managers)', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  async function managers(config = {}) {
    const location = await database.create()
    const a = await openTestPlane(database, config, location)
    planes.push(a)
    const b = await openTestPlane(database, config, location)
    planes.push(b)
    return [a, b] as const
  }

  it('never loses a rejection: a 200 reject always ends rejected, and nothing rejected runs', async () => {
    const [a, b] = await managers()
    const n = rounds(15)
    const tally = { approveWon: 0, rejectWon: 0, bothAnswered200: 0, lostRejections: 0, ranAfterReject: 0 }
    for (let i = 0; i < n; i++) {
      const id = approvalIdOf(await a.invoke('write_thing', { value: `race-${i}` }, { caller: helper }))
      const [approved, rejected] = await Promise.all([
        a.approvals.decide({ id, caller: operator, decision: 'approve' }),
        b.approvals.decide({ id, caller: admin, decision: 'reject' }),
      ])
      const final = (await a.approvals.get(id))!.status
      if (approved.ok && rejected.ok) tally.bothAnswered200++
      if (rejected.ok && final !== 'rejected') tally.lostRejections++
      if (rejected.ok) tally.rejectWon++
      if (approved.ok && final === 'approved') tally.approveWon++
      // The loser hears a conflict, never a success.
      for (const outcome of [approved, rejected]) if (!outcome.ok) expect(outcome).toMatchObject({ code: 'conflict' })
      const ran = await b.invoke('write_thing', { value: `race-${i}` }, { caller: helper, approval: { mode: 'use', approvalId: id } })
      if (ran.ok && final !== 'approved') tally.ranAfterReject++
    }
    console.log(`approval races on ${database.name}: ${n} rounds, ${JSON.stringify(tally)}`)
    expect(tally).toMatchObject({ bothAnswered200: 0, lostRejections: 0, ranAfterReject: 0 })
    expect(tally.approveWon + tally.rejectWon).toBe(n)
  })

  it('lets a reject beat approvals short of the threshold of a dangerous request', async () => {
    const signer = sopSigner()
    const [a, b] = await managers({ sopKeys: [signer.config] })
    const sop = signer.sop({ id: 'wipe', skills: ['wipe_things'] })
    await a.approvals.sops.register(sop.document, sop.signature, admin, a.now())
    const n = rounds(10)
    let rejectedWithTwoApprovals = 0
    for (let i = 0; i < n; i++) {
      const id = approvalIdOf(await a.invoke('wipe_things', { count: i + 1 }, { caller: helper }))
      const [first, second, rejected] = await Promise.all([
        a.approvals.decide({ id, caller: admin, decision: 'approve', sopId: 'wipe' }),
        b.approvals.decide({ id, caller: admin2, decision: 'approve', sopId: 'wipe' }),
        b.approvals.decide({ id, caller: admin3, decision: 'reject' }),
      ])
      const view = (await a.approvals.get(id))!
      if (rejected.ok) {
        expect(view.status).toBe('rejected')
        // Approvals that landed before the reject stay on record; none landed after it.
        const rejectAt = view.decisions.findIndex((d) => d.decision === 'reject')
        expect(rejectAt).toBe(view.decisions.length - 1)
      } else {
        expect(first.ok && second.ok).toBe(true)
        expect(view.status).toBe('approved')
        rejectedWithTwoApprovals++
      }
    }
    console.log(`dangerous approval races on ${database.name}: ${n} rounds, approved before the reject in ${rejectedWithTwoApprovals}`)
  })
})
