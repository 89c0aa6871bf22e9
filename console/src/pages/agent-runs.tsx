import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { Chip, Cost, Elapsed, ErrorNote, StatusChip, Time, Tokens } from '../components'
import { compareRunsPath, runPath } from '../paths'

const PAGE_SIZE = 20
const EXCERPT = 90

const excerpt = (text: string, length = EXCERPT): string => (text.length > length ? text.slice(0, length - 1).trimEnd() + '…' : text)

/** An agent's runs, newest first, a page at a time; two of them can be picked to compare side by side. */
export function AgentRuns({ agentId, refresh }: { agentId: string; refresh: number }) {
  const navigate = useNavigate()
  // The cursors of the pages before this one: "Newer" goes back one.
  const [cursors, setCursors] = useState<string[]>([])
  const cursor = cursors.at(-1)
  // The runs picked to compare, oldest pick first; they stay picked across pages.
  const [picked, setPicked] = useState<string[]>([])
  const runs = useApi(
    () => unwrap(api.GET('/api/agents/{id}/runs', { params: { path: { id: agentId }, query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } } })),
    [agentId, cursor ?? '', refresh],
  )
  const rows = runs.data?.items ?? []
  // A third pick replaces the older of the two; run A is the earlier run (ids sort by time).
  const pick = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id].slice(-2) : p.filter((x) => x !== id)))
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
            <th>
              <span className="visually-hidden">Pick to compare</span>
            </th>
            <th>Started</th>
            <th>Status</th>
            <th>Requester</th>
            <th>Prompt</th>
            <th>Time</th>
            <th>Tokens in / out</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((run) => (
            <tr key={run.id} data-run={run.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Compare run ${run.id}`}
                  checked={picked.includes(run.id)}
                  onChange={(event) => pick(run.id, event.currentTarget.checked)}
                />
              </td>
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
              <td>
                <Elapsed ms={run.totals.durationMs} />
              </td>
              <td>
                <Tokens count={run.totals.inputTokens} /> / <Tokens count={run.totals.outputTokens} />
              </td>
              <td>
                <Cost usd={run.totals.costUsd} />
              </td>
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
        <button type="button" disabled={picked.length !== 2} onClick={() => navigate(compareRunsPath(agentId, ...(picked.toSorted() as [string, string])))}>
          Compare {picked.length === 2 ? 'the two picked runs' : `(pick ${2 - picked.length} more)`}
        </button>
      </div>
    </>
  )
}
