import { describe, expect, it } from 'vitest'
import { decidePolicy } from './decide-policy.js'
import type { PolicyRow } from '../store/policy-repository.js'
import type { Caller } from '../skill/skill-types.js'

const alice: Caller = { kind: 'user', id: 'k1', name: 'alice', role: 'operator' }
const bot: Caller = { kind: 'agent', id: 'k2', name: 'bot-key', agentId: 'fleet' }
let n = 0
const policy = (skill: string, level: string, subject: string, decision: string): PolicyRow => ({
  id: `p${++n}`,
  skill_key: skill,
  level,
  subject,
  decision,
  created_by: 'admin',
  created_at: 'now',
})
const decide = (skillClass: 'safe' | 'mutating' | 'dangerous', caller: Caller, policies: PolicyRow[] = []) =>
  decidePolicy({ skill: 's', skillClass, caller, agentId: caller.kind === 'agent' ? caller.agentId : null, policies })

describe('decidePolicy', () => {
  it('defaults from the class: agents ask for mutating skills, humans with the role run them', () => {
    expect(decide('safe', bot).decision).toBe('ALWAYS')
    expect(decide('mutating', bot)).toMatchObject({ decision: 'ASK', requirement: { approvals: 1, approverRole: 'operator', sop: false } })
    expect(decide('mutating', alice).decision).toBe('ALWAYS')
    expect(decide('dangerous', alice)).toMatchObject({ decision: 'ASK', requirement: { approvals: 2, approverRole: 'admin', sop: true } })
  })

  it('lets the strictest applicable override win, at every level', () => {
    expect(decide('mutating', bot, [policy('s', 'agent', 'fleet', 'ALWAYS')]).decision).toBe('ALWAYS')
    expect(decide('mutating', bot, [policy('s', 'agent', 'fleet', 'ALWAYS'), policy('*', 'global', '*', 'ASK')]).decision).toBe('ASK')
    expect(decide('mutating', bot, [policy('s', 'agent', 'other', 'DENY')]).decision).toBe('ASK')
    expect(decide('safe', bot, [policy('s', 'role', 'agent', 'DENY')]).decision).toBe('DENY')
    expect(decide('mutating', alice, [policy('s', 'user', 'alice', 'ASK')]).decision).toBe('ASK')
    const denyK1 = policy('s', 'user', 'k1', 'DENY')
    expect(decide('mutating', alice, [denyK1, policy('s', 'role', 'operator', 'ASK')])).toMatchObject({
      decision: 'DENY',
      reason: expect.stringContaining('(user k1, skill s) says DENY'),
      policyId: denyK1.id,
    })
    // The class default names no override.
    expect(decide('mutating', alice, [policy('s', 'agent', 'fleet', 'DENY')])).not.toHaveProperty('policyId')
    expect(decide('safe', alice, [policy('other', 'global', '*', 'DENY')]).decision).toBe('ALWAYS')
    // A user override names a human: an agent key with the same name is not that user.
    const botNamedAlice: Caller = { kind: 'agent', id: 'k3', name: 'alice', agentId: 'fleet' }
    expect(decide('mutating', botNamedAlice, [policy('s', 'user', 'alice', 'ALWAYS')]).decision).toBe('ASK')
  })

  it('never lets a dangerous skill drop below ASK', () => {
    const floored = decide('dangerous', alice, [policy('s', 'user', 'alice', 'ALWAYS')])
    expect(floored).toMatchObject({ decision: 'ASK', reason: expect.stringContaining('floor') })
    // The floor decided, not the override.
    expect(floored).not.toHaveProperty('policyId')
    expect(decide('dangerous', alice, [policy('s', 'global', '*', 'DENY')]).decision).toBe('DENY')
  })
})
