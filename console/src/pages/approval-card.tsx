import { useState } from 'react'
import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { toApiError, useApi } from '../api/use-api'
import type { ApprovalView, Sop } from '../api/types'
import { ClassChip, JsonView, StatusChip, Time } from '../components'
import { useSession } from '../session/session'
import { callPath, skillPath } from '../paths'

/** One request: what would run, for whom, and (for those who may) the decision. */
export function ApprovalCard({ approval: a, sops, onDecided }: { approval: ApprovalView; sops: Sop[]; onDecided: (a: ApprovalView) => void }) {
  const { caller, abilities: can } = useSession()
  // A request names the role its approvers need; the server's table says which of those this caller holds.
  const mayDecide = a.approverRole === 'admin' ? can.decideAdminApprovals : can.decideApprovals
  const [comment, setComment] = useState('')
  const [sopId, setSopId] = useState('')
  const [scope, setScope] = useState<'once' | 'conversation' | 'always'>('once')
  const [minutes, setMinutes] = useState(60)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const approvals = a.decisions.filter((d) => d.decision === 'approve')
  const mine = a.decisions.some((d) => d.approver.id === caller.id)
  const own = a.requester.id === caller.id
  const decidable = a.status === 'pending' && mayDecide && !mine && !own
  const citable = sops.filter((s) => s.skills.includes(a.skill) || s.skills.includes('*'))
  // The server's own check of the chosen procedure against this request, before it is cited.
  const check = useApi(
    async () => (sopId ? unwrap(api.GET('/api/approvals/{id}/sop-check', { params: { path: { id: a.id }, query: { sopId } } })) : null),
    [a.id, sopId],
  )
  const verified = !a.sopRequired || (check.data?.ok === true && !check.loading)
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true)
    setError(null)
    try {
      const common = { ...(comment.trim() && { comment: comment.trim() }) }
      const params = { path: { id: a.id } }
      const decided =
        decision === 'approve'
          ? api.POST('/api/approvals/{id}/approve', {
              params,
              body: { ...common, ...(sopId && { sopId }), ...(scope !== 'once' && { scope }), ...(scope === 'conversation' && { minutes }) },
            })
          : api.POST('/api/approvals/{id}/reject', { params, body: common })
      onDecided(await unwrap(decided))
    } catch (failure) {
      setError(toApiError(failure).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <article className="card" aria-labelledby={`req-${a.id}`} data-approval={a.id} data-status={a.status}>
      <header>
        <h3 id={`req-${a.id}`}>
          <Link to={skillPath(a.skill)}>{a.skill}</Link> <ClassChip value={a.class} /> <StatusChip value={a.status} />
        </h3>
        <span className="muted">
          {a.id} · asked <Time at={a.createdAt} />
        </span>
      </header>
      <dl className="facts">
        <dt>Asked by</dt>
        <dd>
          {a.requester.name} <span className="muted">({a.requester.kind})</span>
          {a.agent && <span className="muted"> for agent {a.agent}</span>}
        </dd>
        {a.onBehalfOf && (
          <>
            <dt>On behalf of</dt>
            <dd>{a.onBehalfOf.name}</dd>
          </>
        )}
        {a.edge && (
          <>
            <dt>On edge</dt>
            <dd>{a.edge.name}</dd>
          </>
        )}
        {a.conversationId && (
          <>
            <dt>Conversation</dt>
            <dd>{a.conversationId}</dd>
          </>
        )}
        <dt>Reason</dt>
        <dd>{a.reason}</dd>
        <dt>Approvals</dt>
        <dd data-testid="progress">
          {approvals.length} of {a.approvalsRequired} ({a.approverRole} or above){a.sopRequired && ', with a signed procedure'}
        </dd>
        <dt>{a.status === 'pending' ? 'Expires' : 'Decided'}</dt>
        <dd>
          <Time at={a.status === 'pending' ? a.expiresAt : a.decidedAt} />
        </dd>
        {a.executedCallId && (
          <>
            <dt>Ran as</dt>
            <dd>{can.readAudit ? <Link to={callPath(a.executedCallId)}>{a.executedCallId}</Link> : a.executedCallId}</dd>
          </>
        )}
      </dl>
      <JsonView value={a.input} label={`Input of ${a.id}`} />
      {a.decisions.length > 0 && (
        <ul className="decisions">
          {a.decisions.map((d, i) => (
            <li key={i}>
              {d.approver.name} <StatusChip value={d.decision === 'approve' ? 'approved' : 'rejected'} />
              {d.sop && <span className="muted"> citing SOP {d.sop.id}</span>}
              {d.comment && <q>{d.comment}</q>} <Time at={d.createdAt} />
            </li>
          ))}
        </ul>
      )}
      {decidable && (
        <form className="decide" onSubmit={(e) => e.preventDefault()}>
          <label>
            Comment
            <textarea rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
          </label>
          {a.sopRequired && (
            <label>
              Signed procedure
              <select value={sopId} onChange={(e) => setSopId(e.target.value)} required>
                <option value="">choose the procedure you followed</option>
                {citable.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.title} — signed by {s.keyName}, sha256 {s.hash.slice(0, 12)}…
                  </option>
                ))}
              </select>
            </label>
          )}
          {a.sopRequired && sopId && check.data && (
            <p className={check.data.ok ? 'verified' : 'error'} data-testid="sop-check" role="status">
              {check.data.ok
                ? `✓ Verified: the signature checks out with a trusted key, and the procedure covers ${a.skill} and this input (sha256 ${check.data.sop.hash.slice(0, 12)}…).`
                : `✗ ${check.data.message}`}
            </p>
          )}
          {a.class === 'mutating' && (
            <fieldset className="scope">
              <legend>Approve for</legend>
              <label className="inline">
                <input type="radio" name={`scope-${a.id}`} checked={scope === 'once'} onChange={() => setScope('once')} /> this call only
              </label>
              {a.conversationId && (
                <label className="inline">
                  <input type="radio" name={`scope-${a.id}`} checked={scope === 'conversation'} onChange={() => setScope('conversation')} /> the rest of this
                  conversation, for
                  <input
                    type="number"
                    min={1}
                    max={1440}
                    aria-label="Minutes the grant lasts"
                    value={minutes}
                    onChange={(e) => setMinutes(Number(e.target.value))}
                    disabled={scope !== 'conversation'}
                  />
                  minutes
                </label>
              )}
              {a.agent && can.managePolicies && (
                <label className="inline">
                  <input type="radio" name={`scope-${a.id}`} checked={scope === 'always'} onChange={() => setScope('always')} /> always, for agent {a.agent}{' '}
                  (writes an ALWAYS policy)
                </label>
              )}
            </fieldset>
          )}
          <div className="actions">
            <button type="button" disabled={busy || !verified} onClick={() => void decide('approve')}>
              Approve
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void decide('reject')}>
              Reject
            </button>
          </div>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
      {a.status === 'pending' && mayDecide && (mine || own) && (
        <p className="muted">{own ? 'You asked for this call: someone else decides it.' : 'You approved; it waits for another approver.'}</p>
      )}
    </article>
  )
}
