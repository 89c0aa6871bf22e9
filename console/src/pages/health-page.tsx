import { Link, useSearchParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { paths } from '../api/schema'
import { ErrorNote } from '../components'
import { agentPath, skillPath } from '../paths'

type StatsQuery = NonNullable<paths['/api/stats']['get']['parameters']['query']>
type Dim = NonNullable<StatsQuery['dim']>
type Window = NonNullable<StatsQuery['window']>
type Sort = NonNullable<StatsQuery['sort']>
type Order = NonNullable<StatsQuery['order']>

export const DIMS: Array<[Dim, string]> = [
  ['skill', 'Skills'],
  ['agent', 'Agents'],
  ['edge', 'Edges'],
  ['caller', 'Callers'],
]
export const WINDOWS: Window[] = ['1h', '6h', '24h', '7d', '30d']
const PRESETS: Array<[string, Sort]> = [
  ['Slowest', 'p95'],
  ['Most failing', 'errorRate'],
  ['Most waited for approval', 'waitMedian'],
]
const COLUMNS: Array<{ sort: Sort; label: string; title: string }> = [
  { sort: 'calls', label: 'Calls', title: 'Calls finished in the window' },
  { sort: 'errorRate', label: 'Error rate', title: 'Errors, timeouts and interruptions per call' },
  { sort: 'refusalRate', label: 'Refused', title: 'Calls the policy or a role refused, per call' },
  { sort: 'p50', label: 'p50', title: 'Median duration of the calls that ran' },
  { sort: 'p95', label: 'p95', title: '95th percentile duration' },
  { sort: 'p99', label: 'p99', title: '99th percentile duration' },
  { sort: 'approvalsPending', label: 'Pending', title: 'Approval requests waiting now' },
  { sort: 'waitMedian', label: 'Median wait', title: 'Median time approvals waited for a decision, of those decided in the window' },
]

const pct = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)}%`)
export const ms = (value: number | null) => (value === null ? '—' : value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`)
export const seconds = (value: number | null) =>
  value === null ? '—' : value >= 3600 ? `${(value / 3600).toFixed(1)} h` : value >= 60 ? `${(value / 60).toFixed(1)} min` : `${Math.round(value)} s`

/** Where a row leads: a skill's or an agent's page, or the audit filtered to that edge or caller. */
function linkOf(dim: Dim, value: string): string {
  if (dim === 'skill') return skillPath(value)
  if (dim === 'agent') return agentPath(value)
  return `/audit?${new URLSearchParams({ [dim]: value })}`
}

/** Every skill's (agent's, edge's, caller's) health over a window, sortable by each figure. */
export function HealthPage() {
  const [params, setParams] = useSearchParams()
  const dim = (params.get('dim') ?? 'skill') as Dim
  const window = (params.get('window') ?? '24h') as Window
  const sort = (params.get('sort') ?? 'calls') as Sort
  const order = (params.get('order') ?? 'desc') as Order
  const set = (changes: Record<string, string>) => setParams(new URLSearchParams({ dim, window, sort, order, ...changes }))
  const stats = useApi(() => unwrap(api.GET('/api/stats', { params: { query: { dim, window, sort, order, limit: 200 } } })), [dim, window, sort, order])
  const rows = stats.data?.items ?? []
  return (
    <section>
      <h1>Health</h1>
      <div className="toolbar" role="group" aria-label="Health view">
        <label>
          of
          <select aria-label="Dimension" value={dim} onChange={(e) => set({ dim: e.target.value })}>
            {DIMS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          over the last
          <select aria-label="Window" value={window} onChange={(e) => set({ window: e.target.value })}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </label>
        <span className="chips" role="group" aria-label="Presets">
          {PRESETS.map(([label, preset]) => (
            <button key={preset} type="button" aria-pressed={sort === preset && order === 'desc'} onClick={() => set({ sort: preset, order: 'desc' })}>
              {label}
            </button>
          ))}
        </span>
      </div>
      <ErrorNote error={stats.error} />
      <table className="plain health" aria-label="Health" data-testid="health-table" aria-busy={stats.data === undefined}>
        <thead>
          <tr>
            <th scope="col">{DIMS.find(([d]) => d === dim)![1].replace(/s$/, '')}</th>
            {COLUMNS.map((c) => (
              <th key={c.sort} scope="col" title={c.title} aria-sort={sort === c.sort ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
                <button type="button" className="link" onClick={() => set({ sort: c.sort, order: sort === c.sort && order === 'desc' ? 'asc' : 'desc' })}>
                  {c.label}
                  {sort === c.sort ? (order === 'asc' ? ' ▲' : ' ▼') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.value} data-value={r.value}>
              <th scope="row">
                <Link to={linkOf(dim, r.value)}>{r.value}</Link>
              </th>
              <td>{r.calls}</td>
              <td className={r.errorRate ? 'bad' : undefined}>{pct(r.errorRate)}</td>
              <td>{pct(r.refusalRate)}</td>
              <td>{ms(r.p50Ms)}</td>
              <td>{ms(r.p95Ms)}</td>
              <td>{ms(r.p99Ms)}</td>
              <td>{r.approvalsPending || '—'}</td>
              <td>{seconds(r.waitMedianS)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {stats.data && rows.length === 0 && <p className="muted">No calls in the last {window}.</p>}
      {stats.data && (
        <p className="muted">
          {new Date(stats.data.from).toLocaleString()} to {new Date(stats.data.to).toLocaleString()}. Durations are read from log buckets (within 18.4%); the
          counts outlive audit rows that retention deletes.
        </p>
      )}
    </section>
  )
}
