import { performance } from 'node:perf_hooks'
import { BENCH_CALLER, NOOP_KEY, noopWork, openBenchPlane, round, sumCounts } from './support.js'

export interface PipelineBenchOptions {
  warmupMs?: number
  sequentialMs?: number
  concurrentMs?: number
  /** Calls kept in flight in the concurrent mode. */
  concurrency?: number
  /** Alternating bare/pipeline rounds per mode; the median round is reported. */
  rounds?: number
}

export interface ModeFigures {
  /** Calls kept in flight (1 = sequential). */
  inFlight: number
  /** Seconds each side ran per round. */
  roundSeconds: number
  pipelineCalls: number
  /** Median of the rounds. */
  pipelinePerSecond: number
  barePerSecond: number
  /** Pipeline time per call minus bare time per call (wall clock, amortised over concurrent calls). */
  overheadMicros: number
  /** Pipeline throughput as a fraction of the bare call's. */
  ratio: number
}

export interface PipelineBenchResult {
  rounds: number
  sequential: ModeFigures
  concurrent: ModeFigures
  audit: {
    /** Every pipeline call made, warm-up included. */
    calls: number
    rows: number
    okRows: number
    complete: boolean
  }
}

interface Run {
  calls: number
  failures: number
  seconds: number
}

/**
 * Calls `call` for `ms` milliseconds with `inFlight` callers awaiting one call at a time each;
 * the same harness measures both sides, so its own cost cancels out of the overhead.
 */
async function drive(ms: number, inFlight: number, call: (n: number) => Promise<boolean>): Promise<Run> {
  let calls = 0
  let failures = 0
  const start = performance.now()
  const deadline = start + ms
  const worker = async () => {
    while (performance.now() < deadline) {
      if (!(await call(calls++))) failures++
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  return { calls, failures, seconds: (performance.now() - start) / 1000 }
}

const perSecond = (run: Run) => run.calls / run.seconds

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function figures(inFlight: number, ms: number, pipeline: Run[], bare: Run[]): ModeFigures {
  const pipelinePerSecond = median(pipeline.map(perSecond))
  const barePerSecond = median(bare.map(perSecond))
  return {
    inFlight,
    roundSeconds: ms / 1000,
    pipelineCalls: pipeline.reduce((sum, run) => sum + run.calls, 0),
    pipelinePerSecond: round(pipelinePerSecond),
    barePerSecond: round(barePerSecond),
    overheadMicros: round(1e6 / pipelinePerSecond - 1e6 / barePerSecond, 1),
    ratio: pipelinePerSecond / barePerSecond,
  }
}

/** A no-op skill through the whole pipeline (SQLite audit) against a bare call of the same function. */
export async function runPipelineBench(options: PipelineBenchOptions = {}): Promise<PipelineBenchResult> {
  const { warmupMs = 1_000, sequentialMs = 1_500, concurrentMs = 2_500, concurrency = 64, rounds = 3 } = options
  const bench = await openBenchPlane()
  try {
    const { plane } = bench
    const viaPipeline = async (n: number) => (await plane.invoke(NOOP_KEY, { n }, { caller: BENCH_CALLER })).ok
    const bare = async (n: number) => (await noopWork({ n })).n === n

    let pipelineCalls = 0
    // Alternating the two sides spreads the machine's noise over both.
    const measure = async (ms: number, inFlight: number, times: number) => {
      const bareRuns: Run[] = []
      const pipelineRuns: Run[] = []
      for (let i = 0; i < times; i++) {
        bareRuns.push(await drive(ms, inFlight, bare))
        pipelineRuns.push(await drive(ms, inFlight, viaPipeline))
      }
      pipelineCalls += pipelineRuns.reduce((sum, run) => sum + run.calls, 0)
      const failures = [...bareRuns, ...pipelineRuns].reduce((sum, run) => sum + run.failures, 0)
      if (failures > 0) throw new Error(`${failures} calls failed`)
      return figures(inFlight, ms, pipelineRuns, bareRuns)
    }

    await measure(warmupMs, concurrency, 1)
    const sequential = await measure(sequentialMs, 1, rounds)
    const concurrent = await measure(concurrentMs, concurrency, rounds)

    // Every awaited call's final row is committed before its promise resolves.
    const counts = bench.auditCounts()
    const rows = sumCounts(counts)
    const okRows = counts.ok ?? 0
    return {
      rounds,
      sequential,
      concurrent,
      audit: { calls: pipelineCalls, rows, okRows, complete: rows === pipelineCalls && okRows === pipelineCalls },
    }
  } finally {
    await bench.close()
  }
}
