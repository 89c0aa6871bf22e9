import { useState } from 'react'
import { Bar, BarChart, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { paths } from '../api/schema'
import { ErrorNote } from '../components'
import { ms, seconds, WINDOWS } from './health-page'

type Window = NonNullable<NonNullable<paths['/api/stats']['get']['parameters']['query']>['window']>
// Each chart is a third of the page: a few labels fit.
const X_LABELS = 4

/** One skill's or agent's health over a window: calls and failures, p50/p95/p99 duration, approval waits. */
export function HealthCharts({ dim, value }: { dim: 'skill' | 'agent'; value: string }) {
  const [window, setWindow] = useState<Window>('24h')
  const series = useApi(() => unwrap(api.GET('/api/stats/{dim}/{value}/series', { params: { path: { dim, value }, query: { window } } })), [dim, value, window])
  const points = (series.data?.points ?? []).map((p) => ({ ...p, other: p.calls - p.failed - p.refused }))
  const span = points.length > 1 ? Date.parse(points[1]!.bucket) - Date.parse(points[0]!.bucket) : 0
  const label = (at: string) => {
    const date = new Date(at)
    if (span >= 86_400_000) return date.toLocaleDateString([], { timeZone: 'UTC' })
    if (span >= 3_600_000) return date.toLocaleString([], { month: 'short', day: 'numeric', hour: 'numeric' })
    return date.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' })
  }
  const every = Math.max(1, Math.ceil(points.length / X_LABELS))
  const axis = <XAxis dataKey="bucket" tickFormatter={label} interval={every - 1} />
  const calls = points.reduce((n, p) => n + p.calls, 0)
  const waits = points.reduce((n, p) => n + p.approvalWaits, 0)
  return (
    <section aria-labelledby="health-charts" data-testid="health-charts" data-calls={series.data ? calls : undefined}>
      <div className="toolbar">
        <h2 id="health-charts">Health</h2>
        <label>
          over the last
          <select aria-label="Chart window" value={window} onChange={(e) => setWindow(e.target.value as Window)}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={series.error} />
      {series.data && (
        <div className="chart-row">
          <figure className="chart" aria-label="Calls and failures">
            <figcaption className="muted">Calls ({calls}) and failures</figcaption>
            <ResponsiveContainer width="100%" height={160}>
              <BarChart data={points}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                {axis}
                <YAxis allowDecimals={false} width={36} />
                <Tooltip labelFormatter={(at) => label(String(at))} />
                <Legend />
                <Bar dataKey="other" name="ok" stackId="c" fill="#3a8f5c" isAnimationActive={false} />
                <Bar dataKey="failed" name="failed" stackId="c" fill="#c2413b" isAnimationActive={false} />
                <Bar dataKey="refused" name="refused" stackId="c" fill="#d9a23b" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </figure>
          <figure className="chart" aria-label="Duration percentiles">
            <figcaption className="muted">Duration p50, p95, p99</figcaption>
            <ResponsiveContainer width="100%" height={160}>
              <LineChart data={points}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                {axis}
                <YAxis width={64} tickFormatter={(v: number) => ms(v)} />
                <Tooltip labelFormatter={(at) => label(String(at))} formatter={(v) => ms(v as number)} />
                <Legend />
                <Line dataKey="p50Ms" name="p50" stroke="#3a6f8f" dot={{ r: 2 }} connectNulls isAnimationActive={false} />
                <Line dataKey="p95Ms" name="p95" stroke="#d9a23b" dot={{ r: 2 }} connectNulls isAnimationActive={false} />
                <Line dataKey="p99Ms" name="p99" stroke="#c2413b" dot={{ r: 2 }} connectNulls isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </figure>
          <figure className="chart" aria-label="Approval waits">
            <figcaption className="muted">Approval waits ({waits}) and their median</figcaption>
            <ResponsiveContainer width="100%" height={160}>
              <ComposedChart data={points}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                {axis}
                <YAxis yAxisId="n" allowDecimals={false} width={36} />
                <YAxis yAxisId="s" orientation="right" width={52} tickFormatter={(v: number) => seconds(v)} />
                <Tooltip labelFormatter={(at) => label(String(at))} />
                <Legend />
                <Bar yAxisId="n" dataKey="approvalWaits" name="decided" fill="#8a6fbf" isAnimationActive={false} />
                <Line yAxisId="s" dataKey="waitMedianS" name="median wait (s)" stroke="#333" dot connectNulls isAnimationActive={false} />
              </ComposedChart>
            </ResponsiveContainer>
          </figure>
        </div>
      )}
    </section>
  )
}
