import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { AuditEntry } from '../api/types'

const BUCKETS = 24

/** Calls and errors over the time the listed rows span, in equal buckets. */
export function AuditChart({ rows }: { rows: AuditEntry[] }) {
  if (rows.length === 0) return null
  const times = rows.map((r) => Date.parse(r.startedAt))
  const first = Math.min(...times)
  const last = Math.max(...times)
  const width = Math.max(1000, Math.ceil((last - first + 1) / BUCKETS))
  const buckets = Array.from({ length: Math.ceil((last - first + 1) / width) }, (_, i) => ({ at: first + i * width, ok: 0, failed: 0 }))
  rows.forEach((row, i) => {
    const bucket = buckets[Math.floor((times[i]! - first) / width)]!
    if (row.status === 'ok') bucket.ok++
    else if (row.status !== 'running' && row.status !== 'approval_required') bucket.failed++
  })
  const label = (at: number) => new Date(at).toLocaleTimeString()
  return (
    <figure className="chart" aria-label="Calls and errors over time">
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={buckets}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="at" tickFormatter={label} minTickGap={40} />
          <YAxis allowDecimals={false} width={40} />
          <Tooltip labelFormatter={(at) => label(Number(at))} />
          <Legend />
          <Bar dataKey="ok" name="ok" stackId="calls" fill="#3a8f5c" isAnimationActive={false} />
          <Bar dataKey="failed" name="errors and refusals" stackId="calls" fill="#c2413b" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="muted">
        {rows.length} calls from {new Date(first).toLocaleString()} to {new Date(last).toLocaleString()}
      </figcaption>
    </figure>
  )
}
