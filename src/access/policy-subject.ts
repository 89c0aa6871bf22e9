import type { Caller, CallerRole } from '../skill/index.js'
import type { AgentInfo } from '../registry/index.js'
import type { PolicyRow } from '../store/index.js'
import { ROLES, isRole } from '../abilities/index.js'

/**
 * Someone a policy decides for, as the policy matrix shows them: the caller decidePolicy is asked
 * about. `self` is the key asking; `role:<role>` a person with that role (or, for `role:agent`, any
 * agent key) that no user or agent override names; `agent:<id>` an agent's own key; `user:<name>`
 * the user a user override names (their name or id).
 */
export interface PolicySubject {
  id: string
  level: 'self' | 'role' | 'agent' | 'user'
  /** The role, agent id or user name (the caller's name for `self`). */
  subject: string
  label: string
  /** Set when the subject had to be assumed (a user override naming no user, or a disabled one). */
  note: string | null
  caller: Caller
  /** The agent the call is made for. */
  agentId: string | null
}

/** What naming policy subjects reads (a plane is one): the agents, the policies, who a user is. */
export interface SubjectSources {
  agents: { list(): AgentInfo[]; resolve(label: string): string | undefined }
  policies: { rows(): readonly PolicyRow[] }
  /** Who a user name or id is, with the best role their keys give them; null for none (or a disabled one). */
  people: { keys: { callerFor(idOrName: string): Promise<Caller | null> } }
}

export function selfSubject(caller: Caller): PolicySubject {
  return {
    id: 'self',
    level: 'self',
    subject: caller.name,
    label: `${caller.name} (you)`,
    note: null,
    caller,
    agentId: caller.kind === 'agent' ? caller.agentId : null,
  }
}

/** Every subject worth a column: the roles, any agent, each agent, and each user an override names. */
export async function policySubjects(sources: SubjectSources): Promise<PolicySubject[]> {
  const users = [...new Set(sources.policies.rows().flatMap((p) => (p.level === 'user' ? [p.subject] : [])))].sort()
  const agents = [...sources.agents.list()].sort((a, b) => a.name.localeCompare(b.name))
  const people = await Promise.all(users.map((name) => userSubject(name, sources)))
  return [...ROLES.map(roleSubject), anyAgent(), ...agents.map((agent) => agentSubject(agent.id, agent.name)), ...people]
}

/** One subject by its id (`self` is the asking key); undefined for an id that names nothing. */
export async function policySubject(id: string, self: Caller, sources: SubjectSources): Promise<PolicySubject | undefined> {
  if (id === 'self') return selfSubject(self)
  const colon = id.indexOf(':')
  const [level, name] = colon === -1 ? [id, ''] : [id.slice(0, colon), id.slice(colon + 1)]
  if (!name) return undefined
  switch (level) {
    case 'role':
      if (name === 'agent') return anyAgent()
      return isRole(name) ? roleSubject(name) : undefined
    case 'agent': {
      const agentId = sources.agents.resolve(name)
      const agent = agentId && sources.agents.list().find((a) => a.id === agentId)
      return agent ? agentSubject(agent.id, agent.name) : undefined
    }
    case 'user':
      return userSubject(name, sources)
    default:
      return undefined
  }
}

// Placeholder callers have an empty name and id: no user override (its subject is never empty) names them.
function roleSubject(role: CallerRole): PolicySubject {
  return { id: `role:${role}`, level: 'role', subject: role, label: `${role}s`, note: null, caller: { kind: 'user', id: '', name: '', role }, agentId: null }
}

function anyAgent(): PolicySubject {
  return {
    id: 'role:agent',
    level: 'role',
    subject: 'agent',
    label: 'any agent',
    note: 'before bindings and agent overrides',
    caller: { kind: 'agent', id: '', name: '', agentId: '' },
    agentId: null,
  }
}

function agentSubject(id: string, name: string): PolicySubject {
  return { id: `agent:${id}`, level: 'agent', subject: id, label: name, note: null, caller: { kind: 'agent', id: '', name: '', agentId: id }, agentId: id }
}

async function userSubject(name: string, sources: SubjectSources): Promise<PolicySubject> {
  const found = await sources.people.keys.callerFor(name)
  // A key's name is no user: user overrides name users.
  const person = found?.kind === 'user' && (found.name === name || found.id === name) ? found : null
  return {
    id: `user:${name}`,
    level: 'user',
    subject: name,
    label: name,
    note: person ? null : 'no enabled user has this name or id: shown as a viewer',
    caller: person ?? { kind: 'user', id: name, name, role: 'viewer' },
    agentId: null,
  }
}
