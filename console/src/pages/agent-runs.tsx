import { useState } from 'react'
import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { Chip, ErrorNote, StatusChip, Time } from '../components'
import { runPath } from '../paths'

const PAGE_SIZE = 20
const EXCERPT = 90

const excerpt = (text: string, length = EXCERPT): string => (text.length > length ? text.slice(0, length - 1).trimEnd() + '…' : text)

/** An agent's runs, newest first, a page at a time. */
export function AgentRuns({ agentId, refresh }: { agentId: string; refresh: number }) {
  // The cursors of the pages before this one: "Newer" goes back one.
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  const runs = useApi(
    () => unwrap(api.GET('/api/agents/{id}/runs', { params: { path: { id: agentId }, query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } } })),
    [agentId, cursor ?? '', refresh],
  )
  const rows = runs.data?.items ?? []
  return (
    <>
      <h2>
        Runs{' '}
        <button type="button" className="link small" onClick={runs.reload}>
          Refresh
        </button>
      </h2>
      <ErrorNote error={runs.error} />
      <table className="plain runs" aria-label="Runs">
        <thead>
          <tr>
            <th>Started</th>
            <th>Status</th>
            <th>Requester</th>
            <th>Prompt</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((run) => (
            <tr key={run.id} data-run={run.id}>
              <td>
                <Link to={runPath(run.id)}>
                  <Time at={run.createdAt} />
                </Link>
              </td>
              <td>
                <span className="chips">
                  <StatusChip value={run.status} />
                  {run.test && <Chip tone="info">test</Chip>}
                </span>
              </td>
              <td>{run.requester.name}</td>
              <td title={run.prompt}>{excerpt(run.prompt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.data && rows.length === 0 && <p className="muted">{cursor ? 'No older runs.' : 'No runs yet.'}</p>}
      <div className="actions pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!runs.data?.nextCursor} onClick={() => setCursors((c) => [...c, runs.data!.nextCursor!])}>
          Older
        </button>
      </div>
    </>
  )
}
