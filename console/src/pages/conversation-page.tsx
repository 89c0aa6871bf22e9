import { Link, useParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { ApprovalView, AuditEntry } from '../api/types'
import { Duration, ErrorNote, StatusChip, Time } from '../components'
import { callPath, runPath, skillPath } from '../paths'

type Entry = { at: string; call: AuditEntry; approval?: undefined } | { at: string; approval: ApprovalView; call?: undefined }

/** One conversation: its calls in the order they were made, each approval request inline after the call that asked. */
export function ConversationPage() {
  const id = useParams().id!
  const conversation = useApi(() => unwrap(api.GET('/api/conversations/{id}', { params: { path: { id } } })), [id])
  if (conversation.error) return <ErrorNote error={conversation.error} />
  const c = conversation.data
  if (!c) return <p>Loading…</p>
  // A request sits right after the call it refused; one whose call is not shown goes by its time.
  const asked = new Map(c.approvals.map((a) => [a.callId, a]))
  const shownCalls = new Set(c.calls.map((call) => call.callId))
  const entries: Entry[] = [
    ...c.calls.map((call) => ({ at: call.startedAt, call })),
    ...c.approvals.filter((a) => !shownCalls.has(a.callId)).map((approval) => ({ at: approval.createdAt, approval })),
  ].sort((a, b) => a.at.localeCompare(b.at))
  return (
    <section>
      <p>
        <Link to={`/audit?${new URLSearchParams({ conversationId: id })}`}>← Audit</Link>
      </p>
      <h1>
        Conversation <code>{id}</code>
      </h1>
      <p className="muted">
        {c.truncated ? 'The first ' : ''}
        {c.calls.length} call{c.calls.length === 1 ? '' : 's'}, {c.approvals.length} approval request{c.approvals.length === 1 ? '' : 's'}
        {c.truncated ? ' (the conversation holds more)' : ''}
        {c.run && (
          <>
            {' '}
            · agent run <Link to={runPath(c.run.id)}>{c.run.id}</Link> of {c.run.agent} <StatusChip value={c.run.status} />
          </>
        )}
      </p>
      <ol className="timeline" aria-label="Timeline">
        {entries.map((entry) =>
          entry.call ? (
            <li key={entry.call.callId} data-call={entry.call.callId}>
              <CallItem call={entry.call} />
              {asked.has(entry.call.callId) && <ApprovalItem approval={asked.get(entry.call.callId)!} />}
            </li>
          ) : (
            <li key={entry.approval.id}>
              <ApprovalItem approval={entry.approval} />
            </li>
          ),
        )}
      </ol>
    </section>
  )
}

function CallItem({ call }: { call: AuditEntry }) {
  return (
    <div className="timeline-call">
      <Link to={callPath(call.callId)}>
        <Time at={call.startedAt} />
      </Link>{' '}
      <Link to={skillPath(call.skill)}>{call.skill}</Link> <StatusChip value={call.status} />{' '}
      <span className="muted">
        by {call.caller.name}
        {call.agent && ` for ${call.agent}`} · <Duration ms={call.durationMs} />
      </span>
      {call.error && <p className="error small">{call.error.message}</p>}
    </div>
  )
}

function ApprovalItem({ approval: a }: { approval: ApprovalView }) {
  return (
    <article className="card timeline-approval" aria-label={`Approval request for ${a.skill}`} data-approval={a.id}>
      <strong>Approval request</strong> <StatusChip value={a.status} />{' '}
      <span className="muted">
        {a.approvalsRequired > 1 ? `${a.approvalsRequired} ${a.approverRole}s` : `an ${a.approverRole}`} to decide · asked <Time at={a.createdAt} />
        {a.decidedAt && (
          <>
            {' '}
            · decided <Time at={a.decidedAt} />
          </>
        )}
      </span>
      <p className="small">{a.reason}</p>
      {a.decisions.length > 0 && (
        <ul className="small">
          {a.decisions.map((d, i) => (
            <li key={i}>
              {d.decision} by {d.approver.name}
              {d.comment && `: ${d.comment}`}
            </li>
          ))}
        </ul>
      )}
      {a.executedCallId && (
        <p className="small">
          ran as <Link to={callPath(a.executedCallId)}>{a.executedCallId}</Link>
        </p>
      )}
    </article>
  )
}
