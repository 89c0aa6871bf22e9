import { useState } from 'react'
import { disconnectConnection, listConnections, type ConnectionList, type OAuthProviderInfo } from '../api/connections'
import type { ConnectionInfo } from '../api/types'
import { toApiError, useApi } from '../api/use-api'
import { Chip, ConnectButton, ErrorNote, Time } from '../components'
import { useSession } from '../session/session'

/**
 * The caller's own OAuth connections, one row per configured provider (Connect, Reconnect,
 * Disconnect), the service account's; and for admins everyone's, from `?all=true`.
 */
export function ConnectionsPage() {
  const { caller, abilities: can } = useSession()
  const admin = can.manageConnections
  const loaded = useApi(() => listConnections(admin), [admin])
  const list = loaded.data
  return (
    <section>
      <h1>Connections</h1>
      <p className="muted">
        Accounts at other services that skills use for you: connecting sends you to the service to approve, then back here. skillplane keeps the tokens sealed
        and never shows them.
      </p>
      <ErrorNote error={loaded.error} />
      {list && list.providers.length === 0 && <p className="muted">No OAuth provider is configured (oauth.providers in the config).</p>}
      {list && list.providers.length > 0 && (
        <>
          <ProviderTable
            id="my-connections"
            heading="Your connections"
            list={list}
            account="person"
            mine={(c) => c.account === 'person' && c.subject === caller.name}
            manage
            onChanged={loaded.reload}
          />
          <ProviderTable
            id="service-connections"
            heading="Service connections"
            note={
              admin
                ? 'One account for everyone, for skills configured with account: service.'
                : 'Made by an admin, for skills configured with account: service.'
            }
            list={list}
            account="service"
            mine={(c) => c.account === 'service'}
            manage={admin}
            onChanged={loaded.reload}
          />
          {admin && <EveryoneTable connections={list.connections.filter((c) => c.account === 'person')} onChanged={loaded.reload} />}
        </>
      )}
    </section>
  )
}

/** One row per provider: its connection for this owner, if any, and what may be done with it. */
function ProviderTable({
  id,
  heading,
  note,
  list,
  account,
  mine,
  manage,
  onChanged,
}: {
  id: string
  heading: string
  note?: string
  list: ConnectionList
  account: ConnectionInfo['account']
  mine: (c: ConnectionInfo) => boolean
  manage: boolean
  onChanged: () => void
}) {
  return (
    <>
      <h2 id={id}>{heading}</h2>
      {note && <p className="muted">{note}</p>}
      <table className="plain" aria-labelledby={id}>
        <thead>
          <tr>
            <th>Service</th>
            <th>State</th>
            <th>Scopes</th>
            <th>Connected</th>
            <th>Token expires</th>
            {manage && <th>Actions</th>}
          </tr>
        </thead>
        <tbody>
          {list.providers.map((provider) => {
            const connection = list.connections.find((c) => c.provider === provider.name && mine(c))
            return (
              <tr key={provider.name} data-provider={provider.name}>
                <td>
                  {provider.title} <code>{provider.name}</code>
                </td>
                <td>
                  <StateChip connection={connection} />
                </td>
                <td>
                  <Scopes connection={connection} provider={provider} />
                </td>
                <td>
                  <Time at={connection?.connectedAt} />
                </td>
                <td>
                  <Time at={connection?.expiresAt} />
                </td>
                {manage && (
                  <td>
                    <span className="actions">
                      <ConnectButton
                        provider={provider.name}
                        title={provider.title}
                        account={account}
                        label={connection ? 'Reconnect' : 'Connect'}
                        scopes={connection?.missingScopes}
                      />
                      {connection && <DisconnectButton connection={connection} onDone={onChanged} />}
                    </span>
                  </td>
                )}
              </tr>
            )
          })}
        </tbody>
      </table>
    </>
  )
}

/** Admins: every person's connection, and a Disconnect for each (a person who left, a token to cut). */
function EveryoneTable({ connections, onChanged }: { connections: ConnectionInfo[]; onChanged: () => void }) {
  const rows = [...connections].sort((a, b) => a.provider.localeCompare(b.provider) || (a.subject ?? '').localeCompare(b.subject ?? ''))
  return (
    <>
      <h2 id="everyone-connections">Who is connected</h2>
      {rows.length === 0 ? (
        <p className="muted">Nobody has connected an account yet.</p>
      ) : (
        <table className="plain" aria-labelledby="everyone-connections">
          <thead>
            <tr>
              <th>Service</th>
              <th>Person</th>
              <th>State</th>
              <th>Scopes</th>
              <th>Connected</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={`${c.provider}:${c.subject}`} data-provider={c.provider} data-person={c.subject ?? ''}>
                <td>
                  {c.title} <code>{c.provider}</code>
                </td>
                <td>{c.subject}</td>
                <td>
                  <StateChip connection={c} />
                </td>
                <td>
                  <Scopes connection={c} />
                </td>
                <td>
                  <Time at={c.connectedAt} />
                </td>
                <td>
                  <DisconnectButton connection={c} user={c.subject ?? undefined} onDone={onChanged} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}

function StateChip({ connection }: { connection: ConnectionInfo | undefined }) {
  if (!connection) return <Chip>not connected</Chip>
  if (connection.state === 'needs_auth')
    return (
      <Chip tone="warn" title={connection.reason ?? undefined}>
        needs auth
      </Chip>
    )
  if (connection.missingScopes.length > 0) return <Chip tone="warn">ready, some scopes missing</Chip>
  return <Chip tone="good">ready</Chip>
}

/** The scopes granted, and those asked for but not granted (the provider may grant part). */
function Scopes({ connection, provider }: { connection: ConnectionInfo | undefined; provider?: OAuthProviderInfo }) {
  if (!connection) return <span className="muted">{provider?.defaultScopes.join(' ') || '—'}</span>
  return (
    <span className="chips">
      {connection.scopes.map((s) => (
        <Chip key={s}>{s}</Chip>
      ))}
      {connection.missingScopes.map((s) => (
        <Chip key={s} tone="warn" title="asked for, not granted">
          {s} missing
        </Chip>
      ))}
    </span>
  )
}

function DisconnectButton({ connection, user, onDone }: { connection: ConnectionInfo; user?: string; onDone: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const whose = connection.account === 'service' ? ' (service account)' : user ? ` for ${user}` : ''
  const disconnect = async () => {
    setBusy(true)
    setError(null)
    try {
      await disconnectConnection(connection.provider, { account: connection.account, user })
      onDone()
    } catch (failure) {
      setError(toApiError(failure).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" className="danger" disabled={busy} aria-label={`Disconnect ${connection.title}${whose}`} onClick={() => void disconnect()}>
        Disconnect
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </>
  )
}
