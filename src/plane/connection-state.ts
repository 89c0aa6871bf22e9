import type { Connections, ConnectionState } from '../connections/index.js'
import type { OAuthConnections } from '../oauth/index.js'
import type { Skill } from '../skill/index.js'
import type { Subjects } from '../connections/index.js'

/** Whether a skill can run for a caller, from memory: its secrets and settings, then its OAuth connection. */
export function connectionState(connections: Connections, oauth: OAuthConnections, skill: Skill, subjects: Subjects): ConnectionState {
  const values = connections.state(skill, subjects)
  if (values.state !== 'ready' || skill.oauth === null) return values
  const { provider, scopes, account } = skill.oauth
  const subject = account === 'person' ? subjects.user : ''
  const found = subject === null ? { state: 'needs_auth', missingScopes: oauth.scopesFor(provider, scopes) } : oauth.state(provider, subject, scopes)
  return found.state === 'ready' ? values : { state: 'needs_auth', missing: values.missing, oauth: { provider, missingScopes: found.missingScopes, account } }
}
