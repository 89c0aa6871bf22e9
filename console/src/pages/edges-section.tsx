import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { Chip, ErrorNote, Time } from '../components'
import { useSession } from '../session/session'
import { EnrollEdgeForm } from './enroll-edge-form'

/** Enrolled edges: online or when last heard from, labels, what they offer; admins enroll new ones here. */
export function EdgesSection() {
  const { abilities: can } = useSession()
  const edges = useApi(() => unwrap(api.GET('/api/edges')).then((b) => b.edges), [])
  const rows = [...(edges.data ?? [])].sort((a, b) => Number(!!a.revokedAt) - Number(!!b.revokedAt) || a.name.localeCompare(b.name))
  return (
    <>
      <h2 id="edges">Edges</h2>
      <ErrorNote error={edges.error} />
      {edges.data && rows.length === 0 && <p className="muted">No edge is enrolled.</p>}
      {rows.length > 0 && (
        <table className="plain" aria-labelledby="edges">
          <thead>
            <tr>
              <th>Edge</th>
              <th>State</th>
              <th>Last heartbeat</th>
              <th>Labels</th>
              <th>Skills offered</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((edge) => (
              <tr key={edge.id} data-edge={edge.name}>
                <td>
                  <strong>{edge.name}</strong>
                  <div className="muted">{[edge.hostname, edge.os].filter(Boolean).join(' · ') || 'never connected'}</div>
                </td>
                <td>
                  {edge.revokedAt ? (
                    <Chip tone="bad" title={`revoked ${edge.revokedAt}`}>
                      revoked
                    </Chip>
                  ) : edge.online ? (
                    <Chip tone="good">online</Chip>
                  ) : (
                    <Chip tone="warn">offline</Chip>
                  )}
                </td>
                <td>
                  <Time at={edge.lastSeenAt} />
                </td>
                <td>
                  <span className="chips">
                    {Object.entries(edge.labels).map(([k, v]) => (
                      <Chip key={k} tone="info">
                        {k}={v}
                      </Chip>
                    ))}
                    {Object.keys(edge.labels).length === 0 && <span className="muted">none</span>}
                  </span>
                </td>
                <td>
                  <span className="chips">
                    {edge.skills.map((s) => (
                      <Chip key={s.key} tone={s.available ? 'plain' : 'warn'} title={s.unavailableReason ?? undefined}>
                        {s.key}
                      </Chip>
                    ))}
                    {edge.skills.length === 0 && <span className="muted">none yet</span>}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {can.manageEdges && <EnrollEdgeForm onEnrolled={edges.reload} />}
    </>
  )
}
