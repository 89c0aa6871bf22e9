import { useState } from 'react'
import { useLocation } from 'react-router'
import { authorizeConnection } from '../api/connections'
import type { ConnectionInfo } from '../api/types'
import { toApiError } from '../api/use-api'
import { useSession } from '../session/session'

/**
 * Start the provider's consent: ask the server for the link (it comes back here, to this page) and
 * follow it. The page is left, so the button stays busy until then.
 */
export function ConnectButton({
  provider,
  title,
  scopes,
  account,
  label = 'Connect',
}: {
  provider: string
  /** Who the button connects, for screen readers and the hover: the provider's title. */
  title?: string
  scopes?: string[]
  account?: ConnectionInfo['account']
  label?: 'Connect' | 'Reconnect'
}) {
  const { abilities: can } = useSession()
  const { pathname, search } = useLocation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const connect = async () => {
    // Back to this page, without what the last round trip's return added.
    const back = new URLSearchParams(search)
    back.delete('connected')
    back.delete('missingScopes')
    setBusy(true)
    setError(null)
    try {
      const { authorizationUrl } = await authorizeConnection(provider, {
        ...(scopes?.length && { scopes }),
        ...(account === 'service' && { account }),
        returnTo: pathname + (back.size ? `?${back}` : ''),
      })
      window.location.assign(authorizationUrl)
    } catch (failure) {
      setError(toApiError(failure).message)
      setBusy(false)
    }
  }
  // An agent key acts for no person: it has no account to connect.
  if (!can.connectAccounts) return null
  // The service account serves everyone: only an admin connects it.
  if (account === 'service' && !can.manageConnections) return <span className="muted">an admin connects it</span>
  const name = title ?? provider
  return (
    <span className="connect">
      <button type="button" disabled={busy} aria-label={`${label} ${name}${account === 'service' ? ' (service account)' : ''}`} onClick={() => void connect()}>
        {busy ? 'Opening…' : label}
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </span>
  )
}
