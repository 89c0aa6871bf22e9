import { useMemo, useState } from 'react'
import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { useEventStream } from '../api/use-event-stream'
import type { ApprovalView } from '../api/types'
import { ErrorNote } from '../components'
import { useSession } from '../session/session'
import { ApprovalCard } from './approval-card'

/**
 * How far a request has come: it only moves forward (decisions are added, then it settles, then it
 * runs), so of two views of it the one further along is the newer, whichever arrived last.
 */
const progress = (a: ApprovalView) => (a.status === 'pending' ? 0 : 1000) + a.decisions.length * 10 + (a.executedCallId ? 1 : 0)

/** The inbox: pending requests first, then the latest decided; new ones arrive without a reload. */
export function ApprovalsPage() {
  const { abilities: can } = useSession()
  const [updates, setUpdates] = useState<Map<string, ApprovalView>>(new Map())
  const loaded = useApi(async () => {
    const [pending, recent] = await Promise.all([
      unwrap(api.GET('/api/approvals', { params: { query: { status: 'pending', limit: 200 } } })),
      // The latest decided, however many requests are pending.
      unwrap(api.GET('/api/approvals', { params: { query: { decided: 'true', limit: 50 } } })),
    ])
    return [...pending.items, ...recent.items]
  }, [])
  const sops = useApi(async () => (can.decideAdminApprovals ? (await unwrap(api.GET('/api/sops'))).sops.filter((s) => !s.revokedAt) : []), [])
  const live = useEventStream('/api/events', (event) => {
    const { approval } = JSON.parse(event.data) as { approval?: ApprovalView }
    if (approval) setUpdates((map) => new Map(map).set(approval.id, approval))
  })
  const all = useMemo(() => {
    const byId = new Map<string, ApprovalView>()
    for (const a of loaded.data ?? []) byId.set(a.id, a)
    for (const a of updates.values()) if (!byId.has(a.id) || progress(a) >= progress(byId.get(a.id)!)) byId.set(a.id, a)
    return [...byId.values()]
  }, [loaded.data, updates])
  const pending = all.filter((a) => a.status === 'pending').sort((a, b) => (a.id < b.id ? -1 : 1))
  const decided = all.filter((a) => a.status !== 'pending').sort((a, b) => (a.id < b.id ? 1 : -1))
  const decidedNow = (approval: ApprovalView) => setUpdates((map) => new Map(map).set(approval.id, approval))
  return (
    <section>
      <h1>
        Approvals{' '}
        <span className={live ? 'live on' : 'live'} data-testid="live" data-live={live}>
          {live ? 'live' : 'connecting…'}
        </span>
      </h1>
      {!can.viewApprovals && <p className="muted">Your key can't decide requests; you see the ones you filed.</p>}
      <ErrorNote error={loaded.error} />
      <h2>Pending ({pending.length})</h2>
      {pending.length === 0 && <p className="muted">Nothing waits for a decision.</p>}
      <ul className="cards" aria-label="Pending requests">
        {pending.map((a) => (
          <li key={a.id}>
            <ApprovalCard approval={a} sops={sops.data ?? []} onDecided={decidedNow} />
          </li>
        ))}
      </ul>
      <h2>Recently decided ({decided.length})</h2>
      {decided.length === 0 && <p className="muted">No request has been decided yet.</p>}
      <ul className="cards" aria-label="Decided requests">
        {decided.map((a) => (
          <li key={a.id}>
            <ApprovalCard approval={a} sops={[]} onDecided={decidedNow} />
          </li>
        ))}
      </ul>
      <p className="muted">
        Decided calls show in the <Link to="/audit">audit</Link>.
      </p>
    </section>
  )
}
