import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { ErrorNote } from '../components'

/** At most this many labelled buckets along the time axis. */
const X_LABELS = 8

/** Whole-number ticks from 0 at one even step (1, 2, 5, 10, 20, …) reaching `max`: at most five. */
function countTicks(max: number): number[] {
  let step = 1
  for (let i = 1; Math.ceil(max / step) > 4; i++) step = [1, 2, 5][i % 3]! * 10 ** Math.floor(i / 3)
  const top = Math.max(1, Math.ceil(max / step)) * step
  return Array.from({ length: top / step + 1 }, (_, i) => i * step)
}

/** Calls and failures over time with the timeline's filters, counted by the server over the whole range. */
export function AuditChart({ query }: { query: Record<string, string> }) {
  const histogram = useApi(() => unwrap(api.GET('/api/audit/histogram', { params: { query } })), [JSON.stringify(query)])
  if (histogram.error) return <ErrorNote error={histogram.error} />
  const h = histogram.data
  if (!h) return null
  // Buckets are UTC minutes, hours or days: days are labelled as UTC dates, the rest in the reader's time.
  const label = (at: string) => {
    const date = new Date(at)
    if (h.bucket === 'day') return date.toLocaleDateString([], { timeZone: 'UTC' })
    if (h.bucket === 'hour') return date.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  }
  const points = h.points.map((p) => ({ ...p, ok: p.calls - p.failed }))
  const yTicks = countTicks(Math.max(0, ...h.points.map((p) => p.calls)))
  // Every n-th bucket is labelled, so the labels stand at even distances (recharts' own choice skips unevenly).
  const every = Math.ceil(points.length / X_LABELS)
  const total = h.points.reduce((t, p) => t + p.calls, 0)
  const failed = h.points.reduce((t, p) => t + p.failed, 0)
  return (
    <figure className="chart" aria-label="Calls and errors over time" data-testid="audit-chart" data-calls={total}>
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={points}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="at" tickFormatter={label} interval={every - 1} />
          <YAxis allowDecimals={false} width={40} domain={[0, yTicks.at(-1)!]} ticks={yTicks} interval={0} />
          <Tooltip labelFormatter={(at) => label(String(at))} />
          <Legend />
          <Bar dataKey="ok" name="other calls" stackId="calls" fill="#3a8f5c" isAnimationActive={false} />
          <Bar dataKey="failed" name="errors and refusals" stackId="calls" fill="#c2413b" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="muted">
        {total} calls, {failed} failed, per {h.bucket === 'day' ? 'day (UTC)' : h.bucket}
        {query.skill ? ` of ${query.skill}` : ''}, {new Date(h.from).toLocaleString()} to {new Date(h.to).toLocaleString()}
      </figcaption>
    </figure>
  )
}
