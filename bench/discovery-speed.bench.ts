import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import SQLite from 'better-sqlite3'
import { ulid } from 'ulid'
import type { Skillplane } from '../src/index.js'
import type { Discovery } from '../src/discovery/index.js'
import { DiscoveryRepository, openDatabase, type ExampleRow } from '../src/store/index.js'
import { asked, catalogSkills, discover, mulberry32, openCatalog, shuffled, syntheticCatalog, type BenchCatalog } from './discovery-catalog.js'
import { loadDiscoveryData, type LabelledQuery } from './discovery-data.js'
import { verdict, type BenchSection, type TargetRow } from './section.js'
import { BENCH_CALLER, cpuMicrosPerCall, int } from './support.js'

const SEED = 13
const SKILLS = 10_000
const HISTORY = 100_000
/** discover_skills in the latency runs: what the quality bench scores. */
const LIMIT = 10
const QUERIES = 1_000
const WARMUP = 50
/** Rows a seeding insert takes: 4 columns a row stays far below SQLite's 32,766 bound variables. */
const SEED_BATCH = 1_000
/** Learned queries between the learning-rate run's awaited flushes: a second's worth at the target rate. */
const LEARN_FLUSH_EVERY = 1_000
const LEARN_QUERIES = 20_000
const FEED_QUERIES = 17_000
/** What the real path's discover asks for (discover_skills' default). */
const FEED_LIMIT = 5
const DAY_MS = 24 * 60 * 60 * 1000
/** The seeded history's age spread: a month, within the default half-life, so every row loads. */
const HISTORY_DAYS = 30
/**
 * Runs past the target's reach stop here: the engine before the BM25F index learned a few queries
 * a second, and a fixed stop keeps the section's length bounded; the figures say how far it got.
 */
const LEARN_BUDGET_MS = 60_000
const FEED_BUDGET_MS = 120_000

export const TARGETS = { p99Ms: 5, indexMs: 1_000, learnedPerSecond: 1_000, feedMs: 60_000 }

export interface IndexFigures {
  buildMs: number
  /** Skills in the index once built (the engine's count). */
  skills: number
  /** Heap growth (after a full GC) from building it. */
  heapMB: number
}

export interface Latencies {
  queries: number
  /** The first discover_skills answered, the index built. */
  firstQueryMs: number
  /** `plane.invoke('discover_skills')`: the whole pipeline, its audit commits included. */
  p50Ms: number
  p99Ms: number
  /** The same queries asked of the engine itself (plane.skills.discovery.discover): no pipeline, no audit. */
  engineP50Ms: number
  engineP99Ms: number
}

export interface PlaneFigures {
  /** createSkillplane with the skills already defined: registration, the catalog sync and loading stored history. */
  startMs: number
  /** Heap growth (after a full GC) from starting the plane, the skills already defined. */
  startHeapMB: number
  index: IndexFigures
  /** Learned queries the engine holds once started. */
  examples: number
  latency: Latencies
}

export interface StoreFloor {
  rows: number
  batches: number
  ms: number
  perSecond: number
}

export interface LearningFigures {
  /** Queries taught (remember + observe) before the run ended: all of them, or those within the budget. */
  taught: number
  ms: number
  perSecond: number
  cpuMicrosPerQuery: number
  /** Rows the store gained over the run, the last flush awaited. */
  stored: number
  /** The flushes the engine wrote, replayed into an empty SQLite store by the repository alone. */
  floor: StoreFloor
}

export interface FeedFigures extends LearningFigures {
  /** Queries offered: the run stops at the budget. */
  planned: number
  /** Of those fed, how many had the called skill among discover_skills' results (the old learning gate's share). */
  followed: number
  skills: number
}

export interface DiscoverySpeedResult {
  skills: number
  withoutHistory: PlaneFigures
  /** Seeding the history through the store: the repository's addExamples, batches of SEED_BATCH. */
  seeded: StoreFloor
  withHistory: PlaneFigures
  learning: LearningFigures
  feed: FeedFigures
}

function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

let gc: (() => void) | undefined

function heapMB(): number {
  gc ??= collectGarbage()
  gc()
  return process.memoryUsage().heapUsed / 2 ** 20
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

/** Who asked in the learning-rate run: the bench's admin, for no agent. */
const ASKER = { caller: BENCH_CALLER, agent: null }

/** The engine object behind plane.skills.discovery: the pipeline's own calls (remember, observe, flush), which the plane does not expose. */
const engineOf = (plane: Skillplane) => plane.skills.discovery as Discovery

/** Rows of discovery_examples, read straight from the SQLite file. */
function storedExamples(plane: Skillplane): number {
  const db = new SQLite(plane.status.location, { readonly: true })
  try {
    return (db.prepare('SELECT count(*) AS n FROM discovery_examples').get() as { n: number }).n
  } finally {
    db.close()
  }
}

/** The engine indexes lazily (at the first query or `ready()`): timed right after start, before any query. */
async function measureIndex(plane: Skillplane): Promise<IndexFigures> {
  const heapBefore = heapMB()
  const started = performance.now()
  await plane.skills.discovery.ready()
  const buildMs = performance.now() - started
  return { buildMs, skills: plane.skills.discovery.stats().skills, heapMB: heapMB() - heapBefore }
}

async function measureLatency(plane: Skillplane, sample: readonly string[]): Promise<Latencies> {
  const firstStarted = performance.now()
  await discover(plane, sample[0]!, LIMIT)
  const firstQueryMs = performance.now() - firstStarted
  for (const query of sample.slice(1, WARMUP)) await discover(plane, query, LIMIT)
  const pipeline: number[] = []
  for (const query of sample.slice(WARMUP)) {
    const t0 = performance.now()
    await discover(plane, query, LIMIT)
    pipeline.push(performance.now() - t0)
  }
  const engine: number[] = []
  for (const query of sample.slice(WARMUP)) {
    const t0 = performance.now()
    await plane.skills.discovery.discover(BENCH_CALLER, { query, limit: LIMIT })
    engine.push(performance.now() - t0)
  }
  pipeline.sort((a, b) => a - b)
  engine.sort((a, b) => a - b)
  return {
    queries: pipeline.length,
    firstQueryMs,
    p50Ms: percentile(pipeline, 0.5),
    p99Ms: percentile(pipeline, 0.99),
    engineP50Ms: percentile(engine, 0.5),
    engineP99Ms: percentile(engine, 0.99),
  }
}

/** Start a plane over the skills on `dataDir` (whatever history its store holds), build its index, time its queries. */
async function measurePlane(
  catalog: Parameters<typeof openCatalog>[0],
  dataDir: string,
  sample: readonly string[],
): Promise<{ open: BenchCatalog; figures: PlaneFigures }> {
  const heapBefore = heapMB()
  const started = performance.now()
  const open = await openCatalog(catalog, dataDir)
  const startMs = performance.now() - started
  const startHeapMB = heapMB() - heapBefore
  const index = await measureIndex(open.plane)
  const examples = open.plane.skills.discovery.stats().examples
  const latency = await measureLatency(open.plane, sample)
  return { open, figures: { startMs, startHeapMB, index, examples, latency } }
}

interface Learned {
  key: string
  query: string
}

/** `count` queries of the pool, each for one of the skills its label names (any copy of it in a synthetic catalog). */
function learnedQueries(pool: readonly LabelledQuery[], skillsOf: Map<string, string[]>, count: number, random: () => number): Learned[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!
  return Array.from({ length: count }, () => {
    const { query, relevant } = pick(pool)
    return { key: pick(skillsOf.get(pick(relevant))!), query }
  })
}

/** Rows as a manager's flush writes them, dated over the last `spreadMs`. */
function exampleRows(learned: readonly Learned[], manager: string, now: number, spreadMs: number, random: () => number): ExampleRow[] {
  return learned.map(({ key, query }) => ({
    id: ulid(),
    skill_key: key,
    query,
    created_at: new Date(now - random() * spreadMs).toISOString(),
    manager_id: manager,
  }))
}

/** Rows into the store by the repository alone, in the batches given, on a SQLite file of `dataDir`: the floor under learning. */
async function storeRows(dataDir: string, rows: readonly ExampleRow[], batches: readonly number[]): Promise<StoreFloor> {
  const opened = await openDatabase({ dataDir })
  try {
    const repo = new DiscoveryRepository(opened.db)
    const started = performance.now()
    let at = 0
    for (const size of batches) {
      await repo.addExamples(rows.slice(at, at + size))
      at += size
    }
    const ms = performance.now() - started
    return { rows: at, batches: batches.length, ms, perSecond: (at / ms) * 1000 }
  } finally {
    await opened.close()
  }
}

/** The SQLite floor for what a run stored: the same number of rows in the batch sizes the engine's flushes wrote, into an empty store. */
async function storeFloor(learned: readonly Learned[], batches: readonly number[]): Promise<StoreFloor> {
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-discovery-floor-'))
  try {
    const rows = exampleRows(learned, 'bench-floor', Date.now(), 0, Math.random)
    return await storeRows(dataDir, rows, batches)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The batch sizes the engine's flushes hand the repository while `work` runs (the repository itself is untouched). */
async function recordingBatches<T>(work: () => Promise<T>): Promise<{ result: T; batches: number[] }> {
  const batches: number[] = []
  const addExamples = DiscoveryRepository.prototype.addExamples
  DiscoveryRepository.prototype.addExamples = function (this: DiscoveryRepository, rows: ExampleRow[]) {
    if (rows.length > 0) batches.push(rows.length)
    return addExamples.call(this, rows)
  }
  try {
    return { result: await work(), batches }
  } finally {
    DiscoveryRepository.prototype.addExamples = addExamples
  }
}

/**
 * The engine's learning rate: for each query, the calls the pipeline makes around a discovery and
 * the call that follows it (remember, then observe), the index brought up to date before the next
 * query (what the next discovery does first), and every 1,000 queries the flush to the store, awaited.
 */
async function measureLearning(plane: Skillplane, learned: readonly Learned[]): Promise<LearningFigures> {
  const engine = engineOf(plane)
  const storedBefore = storedExamples(plane)
  let taught = 0
  let ms = 0
  const { result: cpu, batches } = await recordingBatches(() =>
    cpuMicrosPerCall(async () => {
      const started = performance.now()
      for (const [n, { key, query }] of learned.entries()) {
        const conversationId = `bench-learn-${n}`
        engine.remember(conversationId, query, ASKER, [key])
        engine.observe({ key, conversationId })
        await engine.ready()
        taught++
        if (taught % LEARN_FLUSH_EVERY === 0) await engine.flush()
        if (performance.now() - started > LEARN_BUDGET_MS) break
      }
      await engine.flush()
      ms = performance.now() - started
      return taught
    }),
  )
  return {
    taught,
    ms,
    perSecond: (taught / ms) * 1000,
    cpuMicrosPerQuery: cpu.cpuMicrosPerCall,
    stored: storedExamples(plane) - storedBefore,
    floor: await storeFloor(learned.slice(0, taught), batches),
  }
}

/**
 * The real path, one conversation at a time: discover_skills (limit 5) in a fresh conversation,
 * then an ok call of the labelled skill in it; the last flush awaited before the clock stops.
 */
async function measureFeed(catalog: BenchCatalog, queries: readonly LabelledQuery[]): Promise<FeedFigures> {
  const { plane } = catalog
  const engine = engineOf(plane)
  const feed = queries.map(({ query, relevant }) => ({ query, key: catalog.keys.get(relevant[0]!)![0]! }))
  let fed = 0
  let followed = 0
  let ms = 0
  const { result: cpu, batches } = await recordingBatches(() =>
    cpuMicrosPerCall(async () => {
      const started = performance.now()
      for (const [n, { query, key }] of feed.entries()) {
        const conversationId = `bench-feed-${n}`
        if ((await discover(plane, query, FEED_LIMIT, conversationId)).includes(key)) followed++
        const envelope = await plane.invoke(key, {}, { caller: BENCH_CALLER, conversationId })
        if (!envelope.ok) throw new Error(`feed call of ${key} failed: ${envelope.error.code}: ${envelope.error.message}`)
        fed++
        if (performance.now() - started > FEED_BUDGET_MS) break
      }
      await engine.flush()
      ms = performance.now() - started
      return fed
    }),
  )
  return {
    planned: feed.length,
    taught: fed,
    followed,
    skills: plane.skills.discovery.stats().skills,
    ms,
    perSecond: (fed / ms) * 1000,
    cpuMicrosPerQuery: cpu.cpuMicrosPerCall,
    stored: storedExamples(plane),
    floor: await storeFloor(feed.slice(0, fed), batches),
  }
}

export async function runDiscoverySpeedBench(log: (line: string) => void = () => {}): Promise<DiscoverySpeedResult> {
  const data = loadDiscoveryData()
  const random = mulberry32(SEED)
  const tools = [...data.metatoolSingle.tools, ...data.liveMcpBench.tools]
  const pool = asked([...data.metatoolSingle.queries, ...data.liveMcpBench.queries])
  const synthetic = syntheticCatalog(tools, SKILLS, random)
  const catalog = catalogSkills(synthetic)
  // Every skill of the synthetic catalog under the label of the tool it copies: history spreads over the copies.
  const skillsOf = new Map<string, string[]>()
  synthetic.forEach((_, i) => {
    const label = tools[i % tools.length]!.label
    skillsOf.set(label, [...(skillsOf.get(label) ?? []), catalog.skills[i]!.key])
  })
  const sample = Array.from({ length: WARMUP + QUERIES }, () => pool[Math.floor(random() * pool.length)]!.query)

  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-discovery-speed-'))
  try {
    log(`  ${int(SKILLS)} skills, no history: start, index, ${int(QUERIES)} queries`)
    const bare = await measurePlane(catalog, dataDir, sample)
    await bare.open.close()

    log(`  seeding ${int(HISTORY)} learned queries through the store (the repository's addExamples)`)
    const history = learnedQueries(pool, skillsOf, HISTORY, random)
    // Another manager's rows: a plane reads back only what it did not write itself.
    const rows = exampleRows(history, 'bench-other-manager', Date.now(), HISTORY_DAYS * DAY_MS, random)
    const seeded = await storeRows(
      dataDir,
      rows,
      Array.from({ length: Math.ceil(HISTORY / SEED_BATCH) }, (_, i) => Math.min(SEED_BATCH, HISTORY - i * SEED_BATCH)),
    )

    log(`  ${int(SKILLS)} skills with ${int(HISTORY)} learned queries: start, index, ${int(QUERIES)} queries`)
    const loaded = await measurePlane(catalog, dataDir, sample)
    let learning: LearningFigures
    try {
      log(`  learning rate: up to ${int(LEARN_QUERIES)} queries through remember + observe (at most ${LEARN_BUDGET_MS / 1000} s)`)
      learning = await measureLearning(loaded.open.plane, learnedQueries(pool, skillsOf, LEARN_QUERIES, random))
    } finally {
      await loaded.open.close()
    }

    const feedQueries = shuffled(asked(data.metatoolSingle.queries), mulberry32(SEED)).slice(0, FEED_QUERIES)
    log(`  feed: ${int(feedQueries.length)} MetaTool queries, discover_skills then a call, one conversation each (at most ${FEED_BUDGET_MS / 1000} s)`)
    const metatool = await openCatalog(catalogSkills(data.metatoolSingle.tools))
    let feed: FeedFigures
    try {
      feed = await measureFeed(metatool, feedQueries)
    } finally {
      await metatool.close()
    }
    return { skills: SKILLS, withoutHistory: bare.figures, seeded, withHistory: loaded.figures, learning, feed }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const ms2 = (ms: number) => `${ms.toFixed(2)} ms`
const signedMB = (mb: number) => `${mb < 0 ? '−' : '+'}${Math.abs(mb).toFixed(1)} MB`
const perSecond = (n: number) => `${int(n)}/s`
const share = (l: LearningFigures) => `${((l.floor.ms / l.ms) * 100).toPrecision(2)}%`
const cut = (l: LearningFigures, planned: number) =>
  l.taught < planned ? `; stopped at ${int(l.taught)} of ${int(planned)} by the run's time limit, all would take ≈ ${int(planned / l.perSecond)} s` : ''

/** The section's rows of bench/results.md's table of targets. */
export function discoverySpeedTargets(r: DiscoverySpeedResult): TargetRow[] {
  const h = r.withHistory.latency
  const b = r.withoutHistory.latency
  const { learning: l, feed: f } = r
  return [
    {
      target: `discover_skills p99 < ${TARGETS.p99Ms} ms through the pipeline over ${int(r.skills)} skills with ${int(HISTORY)} learned queries`,
      figure: `p99 ${ms2(h.p99Ms)}, p50 ${ms2(h.p50Ms)} (the engine alone p99 ${ms2(h.engineP99Ms)}, p50 ${ms2(h.engineP50Ms)}; without history p99 ${ms2(b.p99Ms)}, engine ${ms2(b.engineP99Ms)})`,
      verdict: verdict(h.p99Ms < TARGETS.p99Ms),
    },
    {
      target: `discovery index build < ${TARGETS.indexMs / 1000} s for ${int(r.skills)} skills`,
      figure: `${int(r.withoutHistory.index.buildMs)} ms (with ${int(HISTORY)} learned queries: ${int(r.withHistory.index.buildMs)} ms)`,
      verdict: verdict(r.withoutHistory.index.buildMs < TARGETS.indexMs),
    },
    {
      target: `discovery learns ≥ ${int(TARGETS.learnedPerSecond)} queries/s sustained (remember + observe, index updates and the store's flush included)`,
      figure: `${perSecond(l.perSecond)} over ${int(l.taught)} queries (SQLite floor for the same rows and batches ${perSecond(l.floor.perSecond)})${cut(l, LEARN_QUERIES)}`,
      verdict: verdict(l.taught === LEARN_QUERIES && l.perSecond >= TARGETS.learnedPerSecond),
    },
    {
      target: `a ${int(FEED_QUERIES)}-query feed through discover_skills → call, one conversation at a time, in < ${TARGETS.feedMs / 1000} s`,
      figure: `${(f.ms / 1000).toFixed(1)} s for ${int(f.taught)}, ${perSecond(f.perSecond)}${cut(f, f.planned)}`,
      verdict: verdict(f.taught === f.planned && f.ms < TARGETS.feedMs),
    },
    {
      target: `every query of the feed learned for the skill called (the store holds one example per query)`,
      figure: `${int(f.stored)} of ${int(f.taught)} fed (discover_skills had returned the called skill for ${int(f.followed)})`,
      verdict: verdict(f.stored === f.taught),
      fact: true,
    },
  ]
}

/** The section's markdown, below its heading. */
export function discoverySpeedReport(r: DiscoverySpeedResult): string {
  const planeRows = (name: string, p: PlaneFigures) => [
    `| ${name}: \`plane.invoke('discover_skills')\` p50 / p99 (the pipeline, its audit commits included) | ${ms2(p.latency.p50Ms)} / ${ms2(p.latency.p99Ms)} |`,
    `| ${name}: the engine alone (\`plane.skills.discovery.discover\`) p50 / p99 | ${ms2(p.latency.engineP50Ms)} / ${ms2(p.latency.engineP99Ms)} |`,
    `| ${name}: index build (\`ready()\` right after start, ${int(p.index.skills)} skills, ${int(p.examples)} learned queries) | ${int(p.index.buildMs)} ms, heap ${signedMB(p.index.heapMB)} |`,
    `| ${name}: plane start with the skills defined (registration, catalog sync, stored history loaded) | ${int(p.startMs)} ms, heap ${signedMB(p.startHeapMB)} |`,
    `| ${name}: first query after the build | ${ms2(p.latency.firstQueryMs)} |`,
  ]
  const { learning: l, feed: f, seeded: s } = r
  const floorText = (x: StoreFloor) => `${perSecond(x.perSecond)} (${int(x.rows)} rows in ${int(x.batches)} batches, ${int(x.ms)} ms)`
  return `## Discovery speed and learning throughput

MetaTool's and LiveMCPBench's tools repeated to ${int(r.skills)} skills (description words shuffled,
keys numbered), registered as code skills on SQLite. ${int(r.withHistory.latency.queries)} of their queries (cut to the 1,000
characters \`discover_skills\` takes) asked in sequence as an admin (limit ${LIMIT}) after ${WARMUP} warm-up queries,
first through the pipeline, then of the engine directly.

The ${int(HISTORY)}-query history is seeded **through the store**, as another manager would have
written it: the discovery repository's \`addExamples\` (${int(SEED_BATCH)} rows a batch, each query
for a random copy of a skill its label names, dated over the last ${HISTORY_DAYS} days), then a fresh
plane loads it at start. The learning path itself is measured below, on its own.

| figure | value |
| --- | --- |
${planeRows('no history', r.withoutHistory).join('\n')}
| seeding ${int(HISTORY)} learned queries through the repository | ${floorText(s)} |
${planeRows(`${int(HISTORY)} learned queries`, r.withHistory).join('\n')}

### Learning throughput

**The engine's learning rate**, on the ${int(r.skills)}-skill plane above (its history loaded): for each
query the calls the pipeline makes, \`remember\` (the discovery offered the skill, in a conversation
of its own) and \`observe\` (an ok call of it followed), then \`ready()\` so the index holds it before the
next query, and every ${int(LEARN_FLUSH_EVERY)} queries the flush to the store, awaited (the last one too).

**The real path**: ${int(f.planned)} distinct MetaTool queries (shuffled, seed ${SEED}) over MetaTool's
${int(f.skills)} skills, one at a time: \`discover_skills\` with limit ${FEED_LIMIT} in a fresh conversation, then an
ok call of the query's labelled skill in it; the clock stops when the engine's last flush is stored.

The SQLite floor: the same number of rows stored by the repository's \`addExamples\` alone, in the
batch sizes the engine's flushes wrote (recorded during the run), into an empty store.

| figure | engine (remember + observe) | real path (discover → call) |
| --- | --- | --- |
| queries through the run (taught; fed) | ${int(l.taught)} of ${int(LEARN_QUERIES)} | ${int(f.taught)} of ${int(f.planned)} |
| time, last flush included | ${(l.ms / 1000).toFixed(2)} s | ${(f.ms / 1000).toFixed(2)} s |
| learned queries per second | ${perSecond(l.perSecond)} | ${perSecond(f.perSecond)} |
| CPU per query | ${int(l.cpuMicrosPerQuery)} µs | ${int(f.cpuMicrosPerQuery)} µs |
| examples the store gained | ${int(l.stored)} | ${int(f.stored)} |
| the called skill among discover_skills' results | | ${int(f.followed)} |
| SQLite floor, the same rows and batches | ${floorText(l.floor)} | ${floorText(f.floor)} |
| the floor's time as a share of the run's | ${share(l)} | ${share(f)} |

A run that reaches its time limit (${LEARN_BUDGET_MS / 1000} s for the engine, ${FEED_BUDGET_MS / 1000} s for the feed) stops there and says so.
`
}

export const discoverySpeedSection: BenchSection = {
  name: 'discovery-speed',
  title: 'Discovery speed and learning throughput',
  async run(log) {
    const r = await runDiscoverySpeedBench(log)
    return { targets: discoverySpeedTargets(r), body: discoverySpeedReport(r) }
  },
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runDiscoverySpeedBench((line) => console.error(line))
  console.log(discoverySpeedReport(r))
}
