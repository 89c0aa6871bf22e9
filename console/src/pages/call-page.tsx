import { useEffect } from 'react'
import { Link, useParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { Duration, ErrorNote, JsonView, StatusChip, Time, Waterfall } from '../components'
import { callPath, conversationPath, runOfConversation, runPath } from '../paths'

// While part of the tree is open (a call running, an approval waiting), it is fetched again this often.
const OPEN_TREE_REFRESH_MS = 5000

/** One audit row in full, and the tree of calls it belongs to as a waterfall. */
export function CallPage() {
  const callId = useParams().callId!
  const row = useApi(() => unwrap(api.GET('/api/audit/{callId}', { params: { path: { callId } } })), [callId])
  const tree = useApi(() => unwrap(api.GET('/api/audit/{callId}/tree', { params: { path: { callId } } })), [callId])
  const open = tree.data?.endedAt === null
  const { reload } = tree
  useEffect(() => {
    if (!open) return
    const timer = setInterval(reload, OPEN_TREE_REFRESH_MS)
    return () => clearInterval(timer)
  }, [open, reload])
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
        {r.traceId && (
          <>
            <dt>Trace</dt>
            <dd>
              <code>{r.traceId}</code>
            </dd>
          </>
        )}
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
      <ErrorNote error={tree.error} />
      {(tree.data?.spans.length ?? 0) > 1 && (
        <>
          <h2>Call tree</h2>
          <Waterfall tree={tree.data!} highlight={tree.data!.spans.find((s) => s.kind === 'call' && s.callId === r.callId)?.id} />
        </>
      )}
    </section>
  )
}
