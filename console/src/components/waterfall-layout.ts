// The waterfall's geometry, apart from React so that it can be tested as plain data: spans in tree
// order become rows with a depth and a bar on one time axis shared by all rows.

/** What the layout reads of a span (the API's `Span`). */
export interface SpanTiming {
  id: string
  parentId: string | null
  kind: string
  startedAt: string
  endedAt: string | null
}

export interface WaterfallRow<S extends SpanTiming> {
  span: S
  depth: number
  /** Where the bar starts and how wide it is, as fractions of the axis (0..1); a zero-length span has width 0. */
  offset: number
  width: number
  durationMs: number
  /** Still open: its bar runs to `now`. */
  pending: boolean
}

/** A stretch of time the axis draws shorter than it lasted, so that milliseconds of work stay readable beside hours of waiting. */
export interface AxisBreak {
  offset: number
  width: number
  durationMs: number
}

export interface AxisTick {
  at: number
  label: string
}

export interface WaterfallAxis {
  /** `linear`: one scale end to end; `broken`: linear except the long waits, each drawn as a narrow break. */
  kind: 'linear' | 'broken'
  durationMs: number
  ticks: AxisTick[]
  breaks: AxisBreak[]
}

export interface WaterfallLayout<S extends SpanTiming> {
  rows: Array<WaterfallRow<S>>
  axis: WaterfallAxis
}

// A break takes this share of the axis; all breaks together at most BREAKS_MAX.
const BREAK_WIDTH = 0.06
const BREAKS_MAX = 0.3
// Ticks at least this far apart (a share of the axis).
const TICK_SPACING = 0.14

type Interval = [number, number]

/**
 * Lays out a call tree's spans (in tree order, parents first) on one time axis. Time in which nothing
 * works (only approval or elicitation spans are open, or nothing is) and that lasts longer than all the working
 * time together is drawn as a break: a person's hours-long decision would otherwise squeeze every call
 * into a hairline. Open spans run to `now` (epoch ms).
 */
export function layoutWaterfall<S extends SpanTiming>(
  tree: { startedAt: string; endedAt: string | null; spans: readonly S[] },
  now: number,
): WaterfallLayout<S> {
  const timed = tree.spans.map((span) => {
    const start = Date.parse(span.startedAt)
    const end = span.endedAt == null ? Math.max(start, now) : Math.max(start, Date.parse(span.endedAt))
    return { span, start, end }
  })
  const t0 = Math.min(Date.parse(tree.startedAt), ...timed.map((t) => t.start))
  const t1 = Math.max(t0, tree.endedAt == null ? now : Date.parse(tree.endedAt), ...timed.map((t) => t.end))

  const depth = new Map<string, number>()
  for (const { span } of timed) depth.set(span.id, span.parentId != null && depth.has(span.parentId) ? depth.get(span.parentId)! + 1 : 0)

  const segments = axisSegments(timed, t0, t1)
  const x = (t: number) => {
    const segment = segments.find((s) => t <= s.to) ?? segments[segments.length - 1]!
    return segment.to === segment.from ? segment.x0 : segment.x0 + ((t - segment.from) / (segment.to - segment.from)) * (segment.x1 - segment.x0)
  }
  const rows = timed.map(({ span, start, end }) => ({
    span,
    depth: depth.get(span.id)!,
    offset: x(start),
    width: x(end) - x(start),
    durationMs: end - start,
    pending: span.endedAt == null,
  }))
  const breaks = segments.filter((s) => s.broken).map((s) => ({ offset: s.x0, width: s.x1 - s.x0, durationMs: s.to - s.from }))
  return { rows, axis: { kind: breaks.length > 0 ? 'broken' : 'linear', durationMs: t1 - t0, ticks: ticks(segments, t0), breaks } }
}

interface Segment {
  from: number
  to: number
  x0: number
  x1: number
  broken: boolean
}

/** The axis as pieces: linear stretches, and the long idle gaps between them drawn as breaks. */
function axisSegments(timed: Array<{ span: SpanTiming; start: number; end: number }>, t0: number, t1: number): Segment[] {
  const busy = union(busyIntervals(timed))
  const busyMs = busy.reduce((sum, [a, b]) => sum + b - a, 0)
  const gaps = subtract([t0, t1], busy).filter(([a, b]) => busyMs > 0 && b - a > busyMs)
  const breakWidth = Math.min(BREAK_WIDTH, BREAKS_MAX / Math.max(gaps.length, 1))
  const linearMs = t1 - t0 - gaps.reduce((sum, [a, b]) => sum + b - a, 0)
  const scale = linearMs > 0 ? (1 - breakWidth * gaps.length) / linearMs : 0
  const pieces: Array<[number, number, boolean]> = []
  let at = t0
  for (const [a, b] of gaps) {
    if (a > at) pieces.push([at, a, false])
    pieces.push([a, b, true])
    at = b
  }
  if (at < t1 || pieces.length === 0) pieces.push([at, t1, false])
  let x = 0
  return pieces.map(([from, to, broken]) => {
    const x0 = x
    x += broken ? breakWidth : (to - from) * scale
    return { from, to, x0, x1: x, broken }
  })
}

// Spans in which a person decides or answers: an approval, a question the call put to its caller.
const WAITS = new Set(['approval', 'elicitation'])

/**
 * When each span works: its own time minus the waits for a person inside it (a run paused for a decision,
 * or a call waiting in-line for one or for its caller's answer, is not working while the person decides).
 */
function busyIntervals(timed: Array<{ span: SpanTiming; start: number; end: number }>): Interval[] {
  const byId = new Map(timed.map((t) => [t.span.id, t]))
  const waits = new Map<string, Interval[]>()
  for (const t of timed) {
    if (!WAITS.has(t.span.kind)) continue
    for (let parent = t.span.parentId; parent != null && byId.has(parent); parent = byId.get(parent)!.span.parentId) {
      waits.set(parent, [...(waits.get(parent) ?? []), [t.start, t.end]])
    }
  }
  return timed.filter((t) => !WAITS.has(t.span.kind)).flatMap((t) => subtract([t.start, t.end], union(waits.get(t.span.id) ?? [])))
}

/** Overlapping intervals merged, in order. */
function union(intervals: Interval[]): Interval[] {
  const merged: Interval[] = []
  for (const [a, b] of [...intervals].sort((p, q) => p[0] - q[0])) {
    const last = merged[merged.length - 1]
    if (last && a <= last[1]) last[1] = Math.max(last[1], b)
    else merged.push([a, b])
  }
  return merged
}

/** What of `[from, to]` the merged `cuts` leave (empty pieces dropped). */
function subtract([from, to]: Interval, cuts: Interval[]): Interval[] {
  const left: Interval[] = []
  let at = from
  for (const [a, b] of cuts) {
    if (b <= at || a >= to) continue
    if (a > at) left.push([at, a])
    at = Math.max(at, b)
  }
  if (at < to) left.push([at, to])
  return left
}

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500]
  .concat([1, 2, 5, 10, 15, 30].map((s) => s * SECOND))
  .concat([1, 2, 5, 10, 15, 30].map((m) => m * MINUTE))
  .concat([1, 2, 3, 6, 12].map((h) => h * HOUR))
  .concat([1, 2, 7, 14, 30].map((d) => d * DAY))

/** Ticks on each linear stretch: the first at its start (time since the tree began), the others `+` from there after a break. */
function ticks(segments: Segment[], t0: number): AxisTick[] {
  const out: AxisTick[] = []
  const stretches = segments.filter((s) => !s.broken)
  for (const [i, s] of stretches.entries()) {
    const count = Math.max(1, Math.floor((s.x1 - s.x0) / TICK_SPACING))
    const step = STEPS.find((candidate) => candidate >= (s.to - s.from) / count) ?? Math.ceil((s.to - s.from) / count / DAY) * DAY
    const afterBreak = i > 0 || s.from > t0
    // A stretch's last label keeps clear of the break after it (where the next stretch's first label
    // stands), and of the axis' end, where only a label for the end itself fits (drawn to its left).
    const end = i === stretches.length - 1
    const last = end ? 1 - TICK_SPACING / 2 : s.x1 - TICK_SPACING / 3
    for (let k = 0; s.from + k * step <= s.to; k++) {
      const at = s.to === s.from ? s.x0 : s.x0 + ((k * step) / (s.to - s.from)) * (s.x1 - s.x0)
      if (k > 0 && at > last && !(end && at > 1 - 1e-9)) continue
      out.push({ at, label: k === 0 ? formatDuration(s.from - t0) : afterBreak ? `+${formatDuration(k * step)}` : formatDuration(k * step) })
      if (s.to === s.from) break
    }
  }
  return out
}

const trim = (n: number) => String(Number(n.toFixed(2)))

/** A duration as a person reads it: `0`, `12 ms`, `1.5 s`, `2 min 5 s`, `3 h 10 min`, `2 d 4 h`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0'
  if (ms < SECOND) return `${trim(ms)} ms`
  if (ms < MINUTE) return `${trim(ms / SECOND)} s`
  const [big, bigUnit, small, smallUnit] = ms < HOUR ? [MINUTE, 'min', SECOND, 's'] : ms < DAY ? [HOUR, 'h', MINUTE, 'min'] : [DAY, 'd', HOUR, 'h']
  const whole = Math.floor(ms / big)
  const rest = Math.floor((ms - whole * big) / small)
  return rest > 0 ? `${whole} ${bigUnit} ${rest} ${smallUnit}` : `${whole} ${bigUnit}`
}
