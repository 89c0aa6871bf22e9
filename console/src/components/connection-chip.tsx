import type { SkillSummary } from '../api/types'
import { Chip } from './chips'
import { ConnectButton } from './connect-button'

/**
 * Whether what a skill needs is there for the viewer, which secrets, settings or scopes are missing
 * (on hover), and for an OAuth connection not made yet, the button that makes it.
 */
export function ConnectionChip({ skill }: { skill: SkillSummary }) {
  const connection = skill.connection
  const state = connection?.state ?? 'ready'
  if (state === 'ready') return <Chip tone="good">ready</Chip>
  const oauth = connection?.oauth
  const missing = [
    ...(connection?.missing?.secrets ?? []),
    ...(connection?.missing?.settings ?? []),
    ...(oauth ? [`a ${oauth.provider} connection${oauth.missingScopes.length ? ` with ${oauth.missingScopes.join(' ')}` : ''}`] : []),
  ]
  return (
    <>
      <Chip tone="warn" title={missing.length ? `missing: ${missing.join(', ')}` : undefined}>
        {state.replace('_', ' ')}
      </Chip>
      {oauth && state === 'needs_auth' && <ConnectButton provider={oauth.provider} scopes={oauth.missingScopes} account={oauth.account} />}
    </>
  )
}
