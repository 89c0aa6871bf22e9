import type { Skill } from '../skill/index.js'
import { awaitingOf, type Connections } from '../connections/index.js'
import { NeedsConnectionError, type OAuthConnections } from '../oauth/index.js'
import { SkillplaneError } from '../errors/index.js'
import type { Call, Connected } from './call.js'
import { refusal, type Refusal } from './refusal.js'
import { storeProblem } from './store-problem.js'
import { subjectsOf } from './subjects-of.js'

const NOTHING: Connected = { secrets: new Map(), settings: new Map() }

/**
 * The secrets and settings the call's skill declares, for this caller, and its OAuth access token
 * (as the secret named after the provider); one missing answers `needs_auth` (a secret, a
 * connection) or `needs_input` (a setting) naming what to set or the link to connect at.
 * Synchronous for a skill that declares none.
 */
export function connectValues(
  call: Call,
  connections: Pick<Connections, 'resolve'> | undefined,
  oauth: Pick<OAuthConnections, 'token'> | undefined,
): Connected | Refusal | Promise<Connected | Refusal> {
  const { skill } = call
  const awaiting = awaitingOf(skill)
  if (awaiting) return missing(skill, awaiting, true)
  if (skill.secrets.length === 0 && skill.settings.length === 0 && skill.oauth === null) return NOTHING
  if (!connections && (skill.secrets.length > 0 || skill.settings.length > 0))
    return missing(skill, { secrets: skill.secrets, settings: skill.settings }, false)
  return read(call, connections, oauth)
}

async function read(
  call: Call,
  connections: Pick<Connections, 'resolve'> | undefined,
  oauth: Pick<OAuthConnections, 'token'> | undefined,
): Promise<Connected | Refusal> {
  const { skill } = call
  const subjects = subjectsOf(call.caller, call.agentId, call.options.onBehalfOf)
  let resolved
  try {
    resolved = connections
      ? await connections.resolve(skill, subjects)
      : { ...NOTHING, secrets: new Map<string, string>(), missing: { secrets: [], settings: [] } }
  } catch (error) {
    return refusal('unavailable', `skill "${skill.key}" could not read its secrets: ${storeProblem(error)}`, 'error')
  }
  if (resolved.missing.secrets.length > 0 || resolved.missing.settings.length > 0) return missing(skill, resolved.missing, false)
  if (skill.oauth === null) return { secrets: resolved.secrets, settings: resolved.settings }
  const { provider, scopes, account } = skill.oauth
  if (!oauth) return refusal('needs_auth', `skill "${skill.key}" needs a ${provider} connection, and this plane has no OAuth connections; nothing ran`, 'error')
  if (account === 'person' && subjects.user === null) {
    return refusal(
      'needs_auth',
      `skill "${skill.key}" runs with the ${provider} account of the person calling, and this call acts for no person (an agent key must act on behalf of a user); nothing ran`,
      'error',
      { missing: { secrets: [], settings: [] }, oauth: { provider, missingScopes: [...scopes], account } },
    )
  }
  try {
    const tokens = await oauth.token(provider, account === 'person' ? subjects.user! : '', scopes, call.options.signal)
    return { secrets: new Map([...resolved.secrets, [provider, tokens.accessToken]]), settings: resolved.settings }
  } catch (error) {
    if (error instanceof NeedsConnectionError) {
      const { authorizationUrl, missingScopes } = error.details
      return refusal('needs_auth', `skill "${skill.key}": ${error.message}; nothing ran`, 'error', {
        missing: { secrets: [], settings: [] },
        oauth: { provider, missingScopes, account },
        ...(authorizationUrl !== undefined && { authorizationUrl }),
      })
    }
    if (SkillplaneError.isInstance(error)) return refusal('unavailable', `skill "${skill.key}" could not get its ${provider} token: ${error.message}`, 'error')
    return refusal('unavailable', `skill "${skill.key}" could not read its ${provider} connection: ${storeProblem(error)}`, 'error')
  }
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
