import type { Caller, SkillClass } from '../api/types'

// What the console offers a caller, mirroring the server's rules (src/access, the routes' roles):
// an action the key may not take is not shown. The server still decides every request.
const role = (caller: Caller) => (caller.kind === 'user' ? caller.role : null)

export const abilities = (caller: Caller) => ({
  /** Approvers decide requests; operators and admins read the audit, edges (the Sources page) and runs. */
  approve: role(caller) === 'operator' || role(caller) === 'admin',
  readAudit: role(caller) === 'operator' || role(caller) === 'admin',
  readEdges: role(caller) === 'operator' || role(caller) === 'admin',
  readRuns: caller.kind === 'agent' || role(caller) === 'operator' || role(caller) === 'admin',
  runAgents: caller.kind === 'agent' || role(caller) === 'operator' || role(caller) === 'admin',
  /** Test runs go through the test_run skill, which no agent is bound to: people only. */
  testRunAgents: role(caller) === 'operator' || role(caller) === 'admin',
  admin: role(caller) === 'admin',
  /** Dangerous requests take admins. */
  decide: (skillClass: SkillClass) => (skillClass === 'dangerous' ? role(caller) === 'admin' : role(caller) === 'operator' || role(caller) === 'admin'),
})

export type Abilities = ReturnType<typeof abilities>
