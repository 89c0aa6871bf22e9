import { describe, expect, it } from 'vitest'
import type { Caller } from '../skill/index.js'
import {
  ABILITY_NAMES,
  abilitiesOf,
  can,
  mayDecideApproval,
  mayExportAgent,
  mayRevokeGrant,
  mayRunClass,
  mayViewApproval,
  missingAbility,
} from './abilities.js'
import { highestRole, isRole, lowerRole, roleAtLeast, ROLES } from './roles.js'

const person = (role: 'viewer' | 'operator' | 'admin', id: string = role): Caller => ({ kind: 'user', id, name: id, role })
const agentKey: Caller = { kind: 'agent', id: 'k1', name: 'helper-key', agentId: 'helper' }
const held = (caller: Caller) => ABILITY_NAMES.filter((name) => can(caller, name))

// Written out by hand, not read from the table: a change to who holds what must change this test too.
const VIEWER = ['connectAccounts']
const OPERATOR = [...VIEWER, 'readAudit', 'viewApprovals', 'decideApprovals', 'manageGrants', 'runAgents', 'testRunAgents', 'readEdges', 'readSops']

describe('roles', () => {
  it('ranks viewer < operator < admin, and an unknown role below all', () => {
    expect(ROLES).toEqual(['viewer', 'operator', 'admin'])
    expect(roleAtLeast('admin', 'operator')).toBe(true)
    expect(roleAtLeast('operator', 'operator')).toBe(true)
    expect(roleAtLeast('viewer', 'operator')).toBe(false)
    expect(roleAtLeast('root', 'viewer')).toBe(false)
    expect(highestRole(['viewer', 'nonsense', 'admin', 'operator'])).toBe('admin')
    expect(highestRole(['nonsense'])).toBeNull()
    expect(lowerRole('admin', 'operator')).toBe('operator')
    expect(lowerRole('viewer', 'admin')).toBe('viewer')
    expect([isRole('operator'), isRole('agent'), isRole(3)]).toEqual([true, false, false])
  })
})

describe('the ability table', () => {
  it('gives a viewer their own connections, an operator the reading and deciding, an admin everything, an agent key its runs', () => {
    expect(held(person('viewer'))).toEqual(VIEWER)
    expect(held(person('operator')).sort()).toEqual([...OPERATOR].sort())
    expect(held(person('admin'))).toEqual(ABILITY_NAMES)
    expect(held(agentKey)).toEqual(['runAgents'])
    expect(abilitiesOf(person('operator'))).toEqual(Object.fromEntries(ABILITY_NAMES.map((name) => [name, OPERATOR.includes(name)])))
  })

  it('says what a refused caller lacks in the words the routes always used', () => {
    expect(missingAbility(person('viewer'), 'readAudit')).toBe('role viewer may not do this: it needs the operator role or higher')
    expect(missingAbility(agentKey, 'manageUsers')).toBe('an agent key may not do this: it needs the admin role or higher')
  })

  it('decides the rules about one object from the same table', () => {
    expect(['safe', 'mutating', 'dangerous'].map((c) => mayRunClass(person('operator'), c as 'safe'))).toEqual([true, true, false])
    expect(mayRunClass(person('viewer'), 'mutating')).toBe(false)
    expect(mayRunClass(agentKey, 'dangerous')).toBe(true)

    const asked = { requester: { id: 'viewer' } }
    expect([mayViewApproval(person('viewer'), asked), mayViewApproval(person('viewer', 'vic'), asked), mayViewApproval(person('operator'), asked)]).toEqual([
      true,
      false,
      true,
    ])

    expect(mayDecideApproval(person('operator'), 'operator')).toBe(true)
    expect(mayDecideApproval(person('operator'), 'admin')).toBe(false)
    expect(mayDecideApproval(person('admin'), 'admin')).toBe(true)
    expect(mayDecideApproval(person('viewer'), 'operator')).toBe(false)
    expect(mayDecideApproval(agentKey, 'operator')).toBe(false)

    expect(mayRevokeGrant(person('operator', 'otto'), 'otto')).toBe(true)
    expect(mayRevokeGrant(person('operator', 'otto'), 'olga')).toBe(false)
    expect(mayRevokeGrant(person('admin'), 'olga')).toBe(true)
    expect(mayRevokeGrant(agentKey, 'k1')).toBe(false)

    expect([
      mayExportAgent(agentKey, 'helper'),
      mayExportAgent(agentKey, 'other'),
      mayExportAgent(person('operator'), 'helper'),
      mayExportAgent(person('admin'), 'helper'),
    ]).toEqual([true, false, false, true])
  })
})
