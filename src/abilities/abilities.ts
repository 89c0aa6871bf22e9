import type { Caller, CallerRole, SkillClass } from '../skill/index.js'
import { roleAtLeast } from './roles.js'

/** Who holds an ability: people from a role up, and agent keys when `agents` says so. */
interface Holders {
  role: CallerRole
  /** Agent keys hold it too (for their own agent: the route checks which agent). */
  agents?: true
}

/**
 * Every ability that depends on no particular object, and who holds it: the one table routes
 * (`requireAbility`), policy, discovery, registry, every surface and the console (through
 * `GET /api/me`) read. Abilities about one object are the functions below, built on it.
 */
export const ABILITIES = {
  /** Read calls, their events and their histogram. */
  readAudit: { role: 'operator' },
  /** Sweep the audit past its retention now. */
  sweepAudit: { role: 'admin' },
  /** Scrape /metrics. */
  readMetrics: { role: 'admin' },
  /** See every approval request (others see their own) and check a signed procedure against one. */
  viewApprovals: { role: 'operator' },
  /** Decide a request that needs an operator. */
  decideApprovals: { role: 'operator' },
  /** Decide a request that needs an admin (dangerous calls). */
  decideAdminApprovals: { role: 'admin' },
  /** List grants, and revoke one's own. */
  manageGrants: { role: 'operator' },
  /** Start agent runs and read them. */
  runAgents: { role: 'operator', agents: true },
  /** Test-run an agent: for the console to offer; the server enforces it through the test_run skill, which no agent is bound to, so people only. */
  testRunAgents: { role: 'operator' },
  /** See the enrolled edges (and so decide as run on one). */
  readEdges: { role: 'operator' },
  /** Enrol, rotate, revoke edges and set what they may read. */
  manageEdges: { role: 'admin' },
  /** Read the signed procedures. */
  readSops: { role: 'operator' },
  /** Register and revoke signed procedures. */
  manageSops: { role: 'admin' },
  /** List, set and clear policy overrides, see the policy in effect for others, approve for always. */
  managePolicies: { role: 'admin' },
  /** Edit, share, bind, install and roll back skills; so see every skill and whom it is shared with. */
  manageSkills: { role: 'admin' },
  /** Read and reload the sources. */
  manageSources: { role: 'admin' },
  /** Read and set secret and setting values; make and remove the service account's OAuth connections, see everyone's. */
  manageConnections: { role: 'admin' },
  /** Connect one's own accounts at OAuth providers, list and disconnect them (people only: an agent acts for nobody's account). */
  connectAccounts: { role: 'viewer' },
  /** Read, verify and disprove learnings. */
  manageLearnings: { role: 'admin' },
  /** Manage users, groups and their roles. */
  manageUsers: { role: 'admin' },
  /** Export any agent's skills (an agent key exports its own). */
  exportAgents: { role: 'admin' },
} as const satisfies Record<string, Holders>

export type Ability = keyof typeof ABILITIES
export const ABILITY_NAMES = Object.keys(ABILITIES) as Ability[]

/** Whoever is asking: a caller, or as little of one as a rule reads. */
type Holder = { kind: 'user'; role: string } | { kind: 'agent' }

export function can(caller: Holder, ability: Ability): boolean {
  const holders: Holders = ABILITIES[ability]
  return caller.kind === 'agent' ? holders.agents === true : roleAtLeast(caller.role, holders.role)
}

/** Every ability of the table and whether this caller holds it (what `GET /api/me` answers). */
export function abilitiesOf(caller: Holder): Record<Ability, boolean> {
  return Object.fromEntries(ABILITY_NAMES.map((name) => [name, can(caller, name)])) as Record<Ability, boolean>
}

/** Why a caller lacks an ability, in the words every refusal uses. */
export function missingAbility(caller: Holder, ability: Ability): string {
  const who = caller.kind === 'agent' ? 'an agent key' : `role ${caller.role}`
  return `${who} may not do this: it needs the ${ABILITIES[ability].role} role or higher`
}

const CLASS_ROLE: Record<SkillClass, CallerRole> = { safe: 'viewer', mutating: 'operator', dangerous: 'admin' }

/** Whether a person's role may run a skill of this class; an agent key asks for any bound skill, and its policy decides. */
export function mayRunClass(caller: Holder, skillClass: SkillClass): boolean {
  return caller.kind === 'agent' || roleAtLeast(caller.role, CLASS_ROLE[skillClass])
}

/** Whether a caller may see an approval request: those who see every request, and its requester. */
export function mayViewApproval(caller: Caller, approval: { requester: { id: string } }): boolean {
  return can(caller, 'viewApprovals') || approval.requester.id === caller.id
}

/** Whether a caller's role may decide a request needing `approverRole` (who asked is the request's own rule). */
export function mayDecideApproval(caller: Holder, approverRole: string): boolean {
  return caller.kind === 'user' && (approverRole === 'admin' ? can(caller, 'decideAdminApprovals') : can(caller, 'decideApprovals'))
}

/**
 * Whether a caller may answer what an agent run's tool call asks a person for (an MCP elicitation):
 * the person the run acts for, and whoever may decide an approval needing `approverRole` (admin for
 * an admin's run or a dangerous tool); never an agent key, so the agent can't answer its own questions.
 */
export function mayAnswerRunInput(caller: Caller, run: { requester: { id: string } }, approverRole: string): boolean {
  return caller.kind === 'user' && (caller.id === run.requester.id || mayDecideApproval(caller, approverRole))
}

/** Whether a caller may revoke a grant: the person who granted it, or one who manages policies. */
export function mayRevokeGrant(caller: Caller, grantedById: string): boolean {
  return caller.kind === 'user' && (can(caller, 'managePolicies') || caller.id === grantedById)
}

/** Whether a caller may see an agent at all: an agent key only its own agent, a person every agent. */
export function maySeeAgent(caller: Caller, agentId: string): boolean {
  return caller.kind === 'user' || caller.agentId === agentId
}

/** Whether a caller may export an agent's skills: its own agent key, or a person who exports any. */
export function mayExportAgent(caller: Caller, agentId: string): boolean {
  return caller.kind === 'agent' ? caller.agentId === agentId : can(caller, 'exportAgents')
}

/** Whether a caller sees every skill and whom each is shared with, whatever its sharing says. */
export function seesEverySkill(caller: Holder): boolean {
  return can(caller, 'manageSkills')
}
