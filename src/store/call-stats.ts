/**
 * The call statistics rollup (`call_stats`, migration 0036): per dimension value and time bucket,
 * counts, durations and approval waits, kept as audit rows become final so the health views read
 * a few rows instead of the audit. Durations and waits are log-bucket histograms.
 */

export const STATS_DIMS = ['all', 'skill', 'agent', 'edge', 'caller'] as const
export type StatsDim = (typeof STATS_DIMS)[number]

/** Minute, hour and day buckets: the leading characters of an ISO time (UTC), as the audit histogram. */
export const GRAINS = { m: 16, h: 13, d: 10 } as const
export type Grain = keyof typeof GRAINS
const GRAIN_LIST = Object.keys(GRAINS) as Grain[]
/**
 * The grains each dimension is kept in. Callers and edges can number thousands, each with a row per
 * minute it called in: they get hours and days only (their shortest window reads whole hours).
 */
export const GRAINS_OF: Record<StatsDim, readonly Grain[]> = { all: GRAIN_LIST, skill: GRAIN_LIST, agent: GRAIN_LIST, edge: ['h', 'd'], caller: ['h', 'd'] }

/**
 * How long each grain of the health stats is kept: minutes serve windows up to a day (and their
 * charts), hours the edges of a 30-day window and the week's chart, days forever. Stats outlive
 * the audit rows retention deletes: they hold counts, never inputs, results or callers' data.
 */
export const STATS_KEPT_DAYS = { m: 2, h: 40 } as const

/** Each histogram bucket's upper bound is RATIO times the one before: a percentile read from it is off by at most √RATIO − 1. */
export const RATIO = 1.4
/** The worst relative error of a percentile estimated from a histogram, for values from 1 up to the last bucket's lower bound. */
export const PERCENTILE_ERROR = Math.sqrt(RATIO) - 1
export const DURATION_BINS = 48
export const WAIT_BINS = 40

// Bucket 0 holds values below 1, bucket i values in [RATIO^(i−1), RATIO^i), the last everything above.
const bounds = (n: number) => Array.from({ length: n - 1 }, (_, i) => RATIO ** i)
export const DURATION_BOUNDS = bounds(DURATION_BINS)
export const WAIT_BOUNDS = bounds(WAIT_BINS)

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9'
type BinColumn = `${'d' | 'w'}${Digit}${Digit}`
export type StatsColumn = 'calls' | 'ok' | 'failed' | 'refused' | 'approval_required' | 'timed' | 'sum_ms' | 'max_ms' | 'waits' | 'wait_sum_ms' | BinColumn
const pad = (i: number) => String(i).padStart(2, '0')
export const DURATION_COLUMNS = Array.from({ length: DURATION_BINS }, (_, i) => `d${pad(i)}` as BinColumn)
export const WAIT_COLUMNS = Array.from({ length: WAIT_BINS }, (_, i) => `w${pad(i)}` as BinColumn)
/** Every counter of a stats row, in the order of a delta's values. */
export const STATS_COLUMNS: readonly StatsColumn[] = [
  'calls',
  'ok',
  'failed',
  'refused',
  'approval_required',
  'timed',
  'sum_ms',
  'max_ms',
  ...DURATION_COLUMNS,
  'waits',
  'wait_sum_ms',
  ...WAIT_COLUMNS,
]
export const KEY_COLUMNS = ['dim', 'value', 'grain', 'bucket'] as const
const at = (column: StatsColumn) => STATS_COLUMNS.indexOf(column)
const CALLS = 0
const OK = 1
const FAILED = 2
const REFUSED = 3
const APPROVAL_REQUIRED = 4
const TIMED = 5
const SUM_MS = 6
/** max_ms is merged with max, never summed: it only grows, even when a rewritten row's count moves. */
export const MAX_MS = 7
const D0 = at('d00')
const WAITS = at('waits')
const WAIT_SUM_MS = at('wait_sum_ms')
const W0 = at('w00')

/** The histogram bucket of a value (ms for durations, s for waits). */
export function binOf(value: number, bucketBounds: readonly number[]): number {
  let lo = 0
  let hi = bucketBounds.length
  // The first bound above the value.
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (value < bucketBounds[mid]!) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * The value a bucket stands for: the geometric middle of its bounds (0 for the bucket below 1),
 * never above the largest value seen.
 */
export function binValue(bin: number, bucketBounds: readonly number[], max?: number): number {
  const value =
    bin === 0
      ? 0
      : bin >= bucketBounds.length
        ? bucketBounds[bucketBounds.length - 1]! * Math.sqrt(RATIO)
        : Math.sqrt(bucketBounds[bin - 1]! * bucketBounds[bin]!)
  return max === undefined || max === null ? value : Math.min(value, max)
}

/** The nearest-rank percentile (0 < p ≤ 1) of a histogram, or null when it is empty. */
export function percentile(histogram: readonly number[], p: number, bucketBounds: readonly number[], max?: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0)
  if (total <= 0) return null
  const rank = Math.max(1, Math.ceil(p * total))
  let seen = 0
  for (let bin = 0; bin < histogram.length; bin++) {
    seen += histogram[bin]!
    if (seen >= rank) return binValue(bin, bucketBounds, max)
  }
  return binValue(histogram.length - 1, bucketBounds, max)
}

/** What a call's row holds that the stats read. */
export interface StatsRowFacts {
  status: string
  duration_ms: number | null
  started_at: string
  skill_key: string
  caller_id: string
  agent_id: string | null
  edge_name: string | null
}

/** An approval that stopped waiting: who asked, for what, when it ended and how long it waited. */
export interface WaitFacts {
  skill_key: string
  caller_id: string
  agent_id: string | null
  edge_name: string | null
  endedAt: string
  seconds: number
}

export interface StatsEntry {
  dim: StatsDim
  value: string
  grain: Grain
  bucket: string
  values: number[]
}

// A refused call never ran: its duration says nothing about the skill.
const UNTIMED = new Set(['denied', 'approval_required'])
const FAILED_STATUSES = new Set(['error', 'timeout', 'interrupted'])

function dimsOf(facts: Pick<StatsRowFacts, 'skill_key' | 'caller_id' | 'agent_id' | 'edge_name'>): Array<[StatsDim, string]> {
  const dims: Array<[StatsDim, string]> = [
    ['all', ''],
    ['skill', facts.skill_key],
    ['caller', facts.caller_id],
  ]
  if (facts.agent_id !== null) dims.push(['agent', facts.agent_id])
  if (facts.edge_name !== null) dims.push(['edge', facts.edge_name])
  return dims
}

/**
 * Deltas of the rollup, gathered in memory per key and written together: a batch of audit rows
 * adds what its final rows count and takes back what the rows they replaced counted.
 */
export class StatsDeltas {
  readonly #entries = new Map<string, StatsEntry>()

  get size(): number {
    return this.#entries.size
  }

  #entry(dim: StatsDim, value: string, grain: Grain, bucket: string): StatsEntry {
    const key = `${dim}\u0000${value}\u0000${grain}\u0000${bucket}`
    let entry = this.#entries.get(key)
    if (!entry) {
      entry = { dim, value, grain, bucket, values: new Array<number>(STATS_COLUMNS.length).fill(0) }
      this.#entries.set(key, entry)
    }
    return entry
  }

  #each(facts: Pick<StatsRowFacts, 'skill_key' | 'caller_id' | 'agent_id' | 'edge_name'>, time: string, apply: (values: number[]) => void): void {
    for (const [dim, value] of dimsOf(facts)) {
      for (const grain of GRAINS_OF[dim]) apply(this.#entry(dim, value, grain, time.slice(0, GRAINS[grain])).values)
    }
  }

  /** Count a row in its final state (sign 1), or take back what an earlier state of it counted (−1). A running row counts nothing. */
  row(facts: StatsRowFacts, sign: 1 | -1): void {
    const ms = facts.duration_ms
    const bin = ms === null ? -1 : binOf(ms, DURATION_BOUNDS)
    this.rows(facts, { n: sign, timed: ms === null ? 0 : sign, sumMs: sign * (ms ?? 0), maxMs: sign > 0 ? (ms ?? 0) : 0, bin })
  }

  /** Count n rows of one status whose durations all fall in one bucket (-1: none has a duration). */
  rows(facts: Omit<StatsRowFacts, 'duration_ms'>, g: { n: number; timed: number; sumMs: number; maxMs: number; bin: number }): void {
    const { status } = facts
    if (status === 'running') return
    const column =
      status === 'ok' ? OK : FAILED_STATUSES.has(status) ? FAILED : status === 'denied' ? REFUSED : status === 'approval_required' ? APPROVAL_REQUIRED : -1
    const timed = g.bin >= 0 && g.timed !== 0 && !UNTIMED.has(status)
    this.#each(facts, facts.started_at, (values) => {
      values[CALLS]! += g.n
      if (column >= 0) values[column]! += g.n
      if (!timed) return
      values[TIMED]! += g.timed
      values[SUM_MS]! += g.sumMs
      values[D0 + g.bin]! += g.timed
      values[MAX_MS] = Math.max(values[MAX_MS]!, g.maxMs)
    })
  }

  wait(facts: WaitFacts): void {
    const seconds = Math.max(0, facts.seconds)
    const bin = W0 + binOf(seconds, WAIT_BOUNDS)
    this.#each(facts, facts.endedAt, (values) => {
      values[WAITS]! += 1
      values[WAIT_SUM_MS]! += Math.round(seconds * 1000)
      values[bin]! += 1
    })
  }

  /** Add another set of deltas to these. */
  merge(other: StatsDeltas): void {
    for (const e of other.entries()) {
      const values = this.#entry(e.dim, e.value, e.grain, e.bucket).values
      for (let i = 0; i < values.length; i++) values[i] = i === MAX_MS ? Math.max(values[i]!, e.values[i]!) : values[i]! + e.values[i]!
    }
  }

  /** The entries that change anything. */
  entries(): StatsEntry[] {
    return [...this.#entries.values()].filter((e) => e.values.some((v) => v !== 0))
  }
}
