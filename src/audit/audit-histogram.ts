export type HistogramBucket = 'minute' | 'hour' | 'day'

export interface Histogram {
  bucket: HistogramBucket
  from: string
  to: string
  /** Every bucket in [from, to), empty ones included, oldest first. */
  points: Array<{ at: string; calls: number; failed: number }>
}

const SIZE: Record<HistogramBucket, { ms: number; prefix: 10 | 13 | 16 }> = {
  minute: { ms: 60_000, prefix: 16 },
  hour: { ms: 3_600_000, prefix: 13 },
  day: { ms: 86_400_000, prefix: 10 },
}
const MAX_POINTS = 1_500
const DAY_MS = SIZE.day.ms

export type HistogramPlan = { ok: true; from: string; to: string; bucket: HistogramBucket; prefix: 10 | 13 | 16 } | { ok: false; message: string }

/**
 * The range and bucket of a chart: the last day by default, and the finest bucket that keeps the
 * chart within MAX_POINTS (or the one asked for, refused when it would make more).
 */
export function planHistogram(range: { from?: string; to?: string; bucket?: HistogramBucket }, now: string): HistogramPlan {
  const to = Date.parse(range.to ?? now)
  const from = range.from ? Date.parse(range.from) : to - DAY_MS
  if (!(from < to)) return { ok: false, message: `from (${range.from ?? new Date(from).toISOString()}) must be before to (${new Date(to).toISOString()})` }
  const points = (bucket: HistogramBucket) => Math.ceil((to - from) / SIZE[bucket].ms) + 1
  const bucket = range.bucket ?? (['minute', 'hour', 'day'] as const).find((b) => points(b) <= 180) ?? 'day'
  if (points(bucket) > MAX_POINTS)
    return {
      ok: false,
      message: `${points(bucket)} ${bucket} buckets are too many for one chart (at most ${MAX_POINTS}): choose a coarser bucket or a shorter range`,
    }
  // From the start of its bucket, so the first bucket counts all of it.
  const start = Math.floor(from / SIZE[bucket].ms) * SIZE[bucket].ms
  return { ok: true, from: new Date(start).toISOString(), to: new Date(to).toISOString(), bucket, prefix: SIZE[bucket].prefix }
}

/** The store's non-empty buckets (ISO prefixes) spread over every bucket of the range (`from` starts one). */
export function fillHistogram(plan: Extract<HistogramPlan, { ok: true }>, rows: Array<{ bucket: string; calls: number; failed: number }>): Histogram {
  const counted = new Map(rows.map((r) => [r.bucket, r]))
  const { ms, prefix } = SIZE[plan.bucket]
  const points: Histogram['points'] = []
  for (let at = Date.parse(plan.from); at < Date.parse(plan.to); at += ms) {
    const iso = new Date(at).toISOString()
    const row = counted.get(iso.slice(0, prefix))
    points.push({ at: iso, calls: row?.calls ?? 0, failed: row?.failed ?? 0 })
  }
  return { bucket: plan.bucket, from: plan.from, to: plan.to, points }
}
