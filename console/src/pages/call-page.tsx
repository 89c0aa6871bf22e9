import { Link, useParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { AuditEntry } from '../api/types'
import { Duration, ErrorNote, JsonView, StatusChip, Time } from '../components'
import { callPath, conversationPath, runOfConversation, runPath } from '../paths'

/** One audit row in full, and the trace it belongs to nested by parent call. */
export function CallPage() {
  const callId = useParams().callId!
  const row = useApi(() => unwrap(api.GET('/api/audit/{callId}', { params: { path: { callId } } })), [callId])
  const trace = useApi(() => (row.data ? loadTrace(row.data) : Promise.resolve([])), [row.data?.callId])
  if (row.error) return <ErrorNote error={row.error} />
  const r = row.data
  if (!r) return <p>Loading…</p>
  return (
    <section>
      <p>
        <Link to="/audit">← Audit</Link>
      </p>
      <h1>
        {r.skill} <StatusChip value={r.status} />
      </h1>
      <dl className="facts">
        <dt>Call</dt>
        <dd>
          <code>{r.callId}</code>
        </dd>
        <dt>Caller</dt>
        <dd>
          {r.caller.name} <span className="muted">({r.caller.kind})</span>
        </dd>
        <dt>Agent</dt>
        <dd>{r.agent ?? '—'}</dd>
        {r.conversationId && (
          <>
            <dt>Conversation</dt>
            <dd>
              <Link to={conversationPath(r.conversationId)}>{r.conversationId}</Link>
              {runOfConversation(r.conversationId) && (
                <>
                  {' '}
                  · agent run <Link to={runPath(runOfConversation(r.conversationId)!)}>{runOfConversation(r.conversationId)}</Link>
                </>
              )}
            </dd>
          </>
        )}
        {r.edgeName && (
          <>
            <dt>Edge</dt>
            <dd>{r.edgeName}</dd>
          </>
        )}
        <dt>Started</dt>
        <dd>
          <Time at={r.startedAt} />
        </dd>
        <dt>Duration</dt>
        <dd>
          <Duration ms={r.durationMs} />
        </dd>
        {r.parentCallId && (
          <>
            <dt>Parent</dt>
            <dd>
              <Link to={callPath(r.parentCallId)}>{r.parentCallId}</Link>
            </dd>
          </>
        )}
        {r.approvalId && (
          <>
            <dt>Approval</dt>
            <dd>
              <code>{r.approvalId}</code>
            </dd>
          </>
        )}
        {r.grantId && (
          <>
            <dt>Grant</dt>
            <dd>
              ran on conversation grant <code>{r.grantId}</code>
            </dd>
          </>
        )}
        {r.error && (
          <>
            <dt>Error</dt>
            <dd className="error">
              {r.error.code}: {r.error.message}
            </dd>
          </>
        )}
      </dl>
      <h2>Input</h2>
      <JsonView value={r.input} label="Input" />
      <h2>Result</h2>
      <JsonView value={r.result} label="Result" />
      {(trace.data?.length ?? 0) > 1 && (
        <>
          <h2>Trace</h2>
          <Trace rows={trace.data!} current={r.callId} />
        </>
      )}
    </section>
  )
}

// How far the trace view walks: parents up, and calls made below.
const MAX_DEPTH = 20
const MAX_CALLS = 500

/**
 * The calls this one belongs with: its OpenTelemetry trace when it ran in one; otherwise the calls
 * linked to it by parent (`ctx.invoke`), from the top caller down.
 */
async function loadTrace(row: AuditEntry): Promise<AuditEntry[]> {
  const page = (query: { traceId?: string; parentCallId?: string }) => unwrap(api.GET('/api/audit', { params: { query: { ...query, limit: MAX_CALLS } } }))
  if (row.traceId) return (await page({ traceId: row.traceId })).items
  let root = row
  for (let depth = 0; root.parentCallId && depth < MAX_DEPTH; depth++) {
    root = await unwrap(api.GET('/api/audit/{callId}', { params: { path: { callId: root.parentCallId } } }))
  }
  const calls = [root]
  let level = [root]
  for (let depth = 0; level.length > 0 && depth < MAX_DEPTH && calls.length < MAX_CALLS; depth++) {
    level = (await Promise.all(level.map((parent) => page({ parentCallId: parent.callId })))).flatMap((p) => p.items)
    calls.push(...level)
  }
  return calls
}

/** The trace's calls as a tree: each call under the one that made it. */
function Trace({ rows, current }: { rows: AuditEntry[]; current: string }) {
  const ids = new Set(rows.map((r) => r.callId))
  const children = new Map<string | null, AuditEntry[]>()
  for (const row of [...rows].sort((a, b) => (a.callId < b.callId ? -1 : 1))) {
    const parent = row.parentCallId && ids.has(row.parentCallId) ? row.parentCallId : null
    children.set(parent, [...(children.get(parent) ?? []), row])
  }
  const render = (parent: string | null) => (
    <ul className="trace">
      {(children.get(parent) ?? []).map((row) => (
        <li key={row.callId}>
          {row.callId === current ? <strong>{row.skill}</strong> : <Link to={callPath(row.callId)}>{row.skill}</Link>} <StatusChip value={row.status} />{' '}
          <span className="muted">{row.durationMs != null && <Duration ms={row.durationMs} />}</span>
          {children.has(row.callId) && render(row.callId)}
        </li>
      ))}
    </ul>
  )
  return <nav aria-label="Trace">{render(null)}</nav>
}
