import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { api, ApiError, authHeaders, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { AuditEntry } from '../api/types'
import { Duration, ErrorNote, StatusChip, Time } from '../components'
import { AuditChart } from './audit-chart'
import { callPath, conversationPath } from '../paths'

const STATUSES = ['ok', 'error', 'denied', 'timeout', 'interrupted', 'approval_required', 'running']
const TEXT_FILTERS = [
  ['skill', 'skill'],
  ['agent', 'agent'],
  ['caller', 'caller'],
  ['edge', 'edge'],
  ['conversationId', 'conversation'],
] as const
// Rows per page of the timeline.
const WINDOW = 100

/** The audit timeline: filters, calls and errors over time, and every row linked to its detail. */
export function AuditPage() {
  const [params] = useSearchParams()
  // Other filters (a new search, back or forward) are another timeline: drafts, pages and cursor start over.
  return <Audit key={params.toString()} />
}

function Audit() {
  const [params, setParams] = useSearchParams()
  const [draft, setDraft] = useState(() => Object.fromEntries([...params.entries()]))
  const [more, setMore] = useState<AuditEntry[]>([])
  const query = Object.fromEntries([...params.entries()].filter(([, v]) => v))
  // The datetime inputs are local time; the API takes instants.
  const filters = { ...query, ...(query.from && { from: new Date(query.from).toISOString() }), ...(query.to && { to: new Date(query.to).toISOString() }) }
  const page = useApi(() => unwrap(api.GET('/api/audit', { params: { query: { ...filters, limit: WINDOW } } })), [params.toString()])
  const [cursor, setCursor] = useState<string | null>(null)
  const next = cursor ?? page.data?.nextCursor ?? null
  const loadMore = async () => {
    if (!next) return
    const more = await unwrap(api.GET('/api/audit', { params: { query: { ...filters, cursor: next, limit: WINDOW } } }))
    setMore((rows) => [...rows, ...more.items])
    setCursor(more.nextCursor ?? '')
  }
  const rows = [...(page.data?.items ?? []), ...more]
  // The chart counts by the filters; the search text is the list's and the export's.
  const { q: _q, ...charted } = filters as Record<string, string>
  return (
    <section>
      <h1>Audit</h1>
      <form
        className="toolbar"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault()
          setParams(new URLSearchParams(Object.entries(draft).filter(([, v]) => v)))
        }}
      >
        <label className="search">
          search
          <input
            type="search"
            placeholder="skill, caller, agent or error words"
            value={draft.q ?? ''}
            onChange={(e) => setDraft({ ...draft, q: e.target.value })}
          />
        </label>
        {TEXT_FILTERS.map(([name, label]) => (
          <label key={name}>
            {label}
            <input value={draft[name] ?? ''} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
          </label>
        ))}
        <label>
          status
          <select value={draft.status ?? ''} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          from
          <input type="datetime-local" value={draft.from ?? ''} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
        </label>
        <label>
          to
          <input type="datetime-local" value={draft.to ?? ''} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        </label>
        <button type="submit">Filter</button>
        <ExportMenu filters={filters} />
      </form>
      <ErrorNote error={page.error} />
      <AuditChart query={charted} />
      {query.q && <p className="muted small">The chart counts the other filters; the search narrows the list and the export.</p>}
      <table className="plain" aria-label="Calls">
        <thead>
          <tr>
            <th>Started</th>
            <th>Skill</th>
            <th>Status</th>
            <th>Caller</th>
            <th>Agent</th>
            <th>Edge</th>
            <th>Conversation</th>
            <th>Duration</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.callId} data-call={row.callId}>
              <td>
                <Link to={callPath(row.callId)}>
                  <Time at={row.startedAt} />
                </Link>
              </td>
              <td>{row.skill}</td>
              <td>
                <StatusChip value={row.status} />
              </td>
              <td>{row.caller.name}</td>
              <td>{row.agent ?? '—'}</td>
              <td>{row.edgeName ?? '—'}</td>
              <td>{row.conversationId ? <Link to={conversationPath(row.conversationId)}>{row.conversationId}</Link> : '—'}</td>
              <td>
                <Duration ms={row.durationMs} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!page.loading && rows.length === 0 && <p className="muted">No calls match.</p>}
      {next && (
        <button type="button" onClick={() => void loadMore()}>
          Older calls
        </button>
      )}
    </section>
  )
}

const FORMATS = [
  ['jsonl', 'JSON lines'],
  ['csv', 'CSV'],
] as const

/**
 * Downloads the current filter as a file. A plain link would carry no API key (it lives in
 * sessionStorage), so the file is fetched with the console's own headers and saved from a Blob.
 */
function ExportMenu({ filters }: { filters: Record<string, string> }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | undefined>()
  const download = async (format: string) => {
    setBusy(true)
    setError(undefined)
    try {
      const response = await fetch(`/api/audit/export?${new URLSearchParams({ ...filters, format })}`, { headers: authHeaders() })
      if (!response.ok) {
        const failure = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }
        throw new ApiError(response.status, failure.error?.code ?? `http_${response.status}`, failure.error?.message ?? response.statusText)
      }
      const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `audit.${format}`
      const url = URL.createObjectURL(await response.blob())
      const link = Object.assign(document.createElement('a'), { href: url, download: name })
      link.click()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'network', (e as Error).message))
    } finally {
      setBusy(false)
    }
  }
  return (
    <details className="menu">
      <summary aria-busy={busy}>Export</summary>
      <div role="menu" aria-label="Export">
        {FORMATS.map(([format, label]) => (
          <button key={format} type="button" role="menuitem" disabled={busy} onClick={() => void download(format)}>
            {label}
          </button>
        ))}
        <p className="muted small">the calls this filter matches, newest first, up to 100,000</p>
      </div>
      <ErrorNote error={error} />
    </details>
  )
}
