import type { Skill } from '../skill/index.js'
import { awaitingOf, type Connections } from '../connections/index.js'
import type { Call, Connected } from './call.js'
import { refusal, type Refusal } from './refusal.js'
import { storeProblem } from './store-problem.js'
import { subjectsOf } from './subjects-of.js'

const NOTHING: Connected = { secrets: new Map(), settings: new Map() }

/**
 * The secrets and settings the call's skill declares, for this caller; one missing answers
 * `needs_auth` (a secret) or `needs_input` (a setting) naming what to set. Synchronous for a skill
 * that declares none.
 */
export function connectValues(call: Call, connections: Pick<Connections, 'resolve'> | undefined): Connected | Refusal | Promise<Connected | Refusal> {
  const { skill } = call
  const awaiting = awaitingOf(skill)
  if (awaiting) return missing(skill, awaiting, true)
  if (skill.secrets.length === 0 && skill.settings.length === 0) return NOTHING
  if (!connections) return missing(skill, { secrets: skill.secrets, settings: skill.settings }, false)
  return read(call, connections)
}

async function read(call: Call, connections: Pick<Connections, 'resolve'>): Promise<Connected | Refusal> {
  const { skill } = call
  let resolved
  try {
    resolved = await connections.resolve(skill, subjectsOf(call.caller, call.agentId, call.options.onBehalfOf))
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
