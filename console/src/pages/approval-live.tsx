import { useState } from 'react'
import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { useEventStream } from '../api/use-event-stream'
import type { ApprovalView } from '../api/types'
import { StatusChip, Time } from '../components'

/** An approval request the caller filed, kept current by the event stream. */
export function ApprovalLive({ id, onRun }: { id: string; onRun: () => void }) {
  const loaded = useApi(() => unwrap(api.GET('/api/approvals/{id}', { params: { path: { id } } })), [id])
  const [latest, setLatest] = useState<ApprovalView | null>(null)
  const live = useEventStream('/api/events', (event) => {
    const body = JSON.parse(event.data) as { approval?: ApprovalView }
    if (body.approval?.id === id) setLatest(body.approval)
  })
  const approval = latest ?? loaded.data
  if (!approval) return <p>Approval request {id} filed.</p>
  const approvals = approval.decisions.filter((d) => d.decision === 'approve').length
  return (
    <div className="approval-live" data-testid="approval-live" data-status={approval.status}>
      <p>
        Needs approval: request <code>{approval.id}</code> <StatusChip value={approval.status} /> {live && <span className="muted">· live</span>}
      </p>
      <p className="muted">
        {approval.reason}. {approvals} of {approval.approvalsRequired} approval{approval.approvalsRequired === 1 ? '' : 's'}; expires{' '}
        <Time at={approval.expiresAt} />. <Link to="/approvals">Open the inbox</Link>
      </p>
      {approval.status === 'approved' && (
        <button type="button" onClick={onRun}>
          Run it now (approved)
        </button>
      )}
    </div>
  )
}
