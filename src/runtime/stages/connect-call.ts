import type { Caller, Skill } from '../../skill/index.js'
import { awaitingOf, type Connections, type Subjects } from '../../secrets/index.js'
import { refusal, type Refusal } from './refusal.js'
import { storeProblem } from './store-problem.js'

/** The declared values a call runs with. */
export interface Connected {
  secrets: ReadonlyMap<string, string>
  settings: ReadonlyMap<string, string>
}

const NOTHING: Connected = { secrets: new Map(), settings: new Map() }

/** Whose values a call uses: the person calling (or the one an agent run acts for), and the agent. */
export function subjectsOf(caller: Caller, agentId: string | null, onBehalfOf: Caller | null | undefined): Subjects {
  const user = caller.kind === 'user' ? caller : onBehalfOf?.kind === 'user' ? onBehalfOf : null
  return { agent: agentId, user: user?.name ?? null }
}

/**
 * Stage between authorise and gate: open the secrets and settings the skill declares for this
 * caller. One missing answers `needs_auth` (a secret) or `needs_input` (a setting) naming what to
 * set, before anyone is asked to approve a call that could not run.
 */
export async function connectCall(connections: Pick<Connections, 'resolve'> | undefined, skill: Skill, subjects: Subjects): Promise<Connected | Refusal> {
  const awaiting = awaitingOf(skill)
  if (awaiting) return missing(skill, awaiting, true)
  if (skill.secrets.length === 0 && skill.settings.length === 0) return NOTHING
  if (!connections) return missing(skill, { secrets: skill.secrets, settings: skill.settings }, false)
  let resolved
  try {
    resolved = await connections.resolve(skill, subjects)
  } catch (error) {
    return refusal('unavailable', `skill "${skill.key}" could not read its secrets: ${storeProblem(error)}`, 'error')
  }
  if (resolved.missing.secrets.length > 0 || resolved.missing.settings.length > 0) return missing(skill, resolved.missing, false)
  return { secrets: resolved.secrets, settings: resolved.settings }
}

function missing(skill: Skill, what: { secrets: readonly string[]; settings: readonly string[] }, globalOnly: boolean): Refusal {
  const names = [...what.secrets.map((n) => `the secret ${n}`), ...what.settings.map((n) => `the setting ${n}`)]
  const commands = [...what.secrets.map((n) => `skillplane secrets set ${n}`), ...what.settings.map((n) => `skillplane settings set ${n} VALUE`)]
  const whose = globalOnly ? 'its source connects with the global value' : 'for this caller (a user value, an agent value, or the global one)'
  return refusal(
    what.secrets.length > 0 ? 'needs_auth' : 'needs_input',
    `skill "${skill.key}" needs ${names.join(' and ')}, not set ${whose}; nothing ran. An admin sets it with: ${commands.join('; ')}`,
    'error',
    { missing: { secrets: [...what.secrets], settings: [...what.settings] } },
  )
}
