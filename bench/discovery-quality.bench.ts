import { parseTargetRows, type BenchSection } from './section.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import pino from 'pino'
import { createSkillplane, defineSkill, type DefinedSkill, type JsonSchema, type Skillplane } from '../src/index.js'
import { loadDiscoveryData, type CatalogTool, type LabelledQuery, type RetrievalSet } from './discovery-data.js'
import { ReferenceBm25, referenceText, STOP_WORDS } from './reference-bm25.js'
import { FIGURE_NAMES, scoreRankings, type FigureName, type RetrievalFigures } from './retrieval-metrics.js'
import { BENCH_CALLER } from './support.js'

/** What `discover_skills` is asked for when scored: the metrics look at most 10 deep. */
const LIMIT = 10
/** The history-feeding discover asks for as many results as discover_skills gives, so the labelled skill is among them as often as can be. */
const FEED_LIMIT = 50
const SEED = 13
/** The longest query discover_skills takes: 4 MetaTool queries and one LiveMCPBench task are longer. */
const MAX_QUERY = 1_000
const SPEED_SKILLS = 10_000
const SPEED_QUERIES = 1_000
const SPEED_WARMUP = 50

export const TARGETS = { heldOutRecall5: 90, heldOutNdcg5: 80, p99Ms: 5, indexMs: 1_000 }

/** The plain BM25 figures `bench/data/README.md` publishes, which the reference must reproduce. */
export const PUBLISHED: Record<'metatoolSingle' | 'metatoolMulti' | 'liveMcpBench', Partial<Record<FigureName, number>>> = {
  metatoolSingle: { acc1: 37.7, recall5: 54.45, ndcg10: 48.62, mrr: 45.72 },
  metatoolMulti: { recall5: 46.58, allIn5: 20.72 },
  liveMcpBench: { recall5: 34.99, ndcg5: 31.21, recall10: 41.82 },
}

type SetName = keyof typeof PUBLISHED

export interface Comparison {
  skillplane: RetrievalFigures
  /** The reference BM25 on the same queries, cut to the same depth (so MRR is MRR@10 on both). */
  reference: RetrievalFigures
}

export interface IndexFigures {
  buildMs: number
  /** Skills in the index once built (the engine's count). */
  skills: number
  /** Heap growth (after a full GC) from building it. */
  heapMB: number
}

export interface SpeedFigures {
  skills: number
  queries: number
  /** createSkillplane with the skills already defined: registration and the catalog sync. */
  startMs: number
  /** Heap growth (after a full GC) from starting the plane, the skills already defined. */
  startHeapMB: number
  index: IndexFigures
  /** The first discover_skills answered, the index built. */
  firstQueryMs: number
  p50Ms: number
  p99Ms: number
  /** The same queries asked of the engine itself (plane.skills.discovery.discover): no pipeline, no audit commits. */
  engineP50Ms: number
  engineP99Ms: number
}

export interface DiscoveryQualityResult {
  /** The reference BM25 over full rankings: what the README publishes. */
  reference: Record<SetName, RetrievalFigures>
  withoutHistory: Record<SetName, Comparison>
  withHistory: Comparison & {
    seed: number
    /** History queries fed through discover then call. */
    fed: number
    /** Of those, how many had a labelled skill among the discover results (what the engine can learn from). */
    followed: number
  }
  speed: SpeedFigures
}

/** The engine indexes lazily (at the first query or `ready()`): timed right after start, before any query. */
export async function measureIndex(plane: Skillplane, heap: () => number): Promise<IndexFigures> {
  const heapBefore = heap()
  const started = performance.now()
  await plane.skills.discovery.ready()
  const buildMs = performance.now() - started
  return { buildMs, skills: plane.skills.discovery.stats().skills, heapMB: heap() - heapBefore }
}

/** A seeded generator (mulberry32): the history split and the synthetic catalog are the same on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** A tool name as a skill key the way MCP imports fold names (camelCase split, the rest to `_`), a letter first, repeats numbered. */
function skillKeys(names: readonly string[]): string[] {
  const taken = new Set<string>()
  return names.map((name) => {
    let base = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
    if (!/^[a-z]/.test(base)) base = `t_${base}`
    base = base.slice(0, 56).replace(/_+$/, '')
    let key = base
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`
    taken.add(key)
    return key
  })
}

/** Draft-04's boolean exclusiveMinimum/Maximum (numbers since draft-06) dropped: one PDF Reader tool has them, and Ajv refuses them. */
function withoutDraft4Bounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDraft4Bounds)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, v]) => !(typeof v === 'boolean' && (name === 'exclusiveMinimum' || name === 'exclusiveMaximum')))
      .map(([name, v]) => [name, withoutDraft4Bounds(v)]),
  )
}

/** The tool's arguments as the skill's JSON Schema input, so that their names and descriptions are indexed. */
function inputOf(schema: JsonSchema): JsonSchema {
  return withoutDraft4Bounds({
    ...(schema.$schema !== undefined && { $schema: schema.$schema }),
    type: 'object',
    properties: schema.properties ?? {},
  }) as JsonSchema
}

function toSkill(tool: CatalogTool, key: string): DefinedSkill<JsonSchema> {
  return defineSkill({
    key,
    // 19 LiveMCPBench tools come without a description; skillplane requires one.
    description: tool.description.trim() || tool.label,
    class: 'safe',
    ...(tool.category !== undefined && { category: tool.category }),
    ...(tool.server !== undefined && { tags: [tool.server] }),
    ...(tool.inputSchema !== undefined && { input: inputOf(tool.inputSchema) }),
    run: () => ({ done: true }),
  })
}

interface CatalogSkills {
  skills: DefinedSkill<JsonSchema>[]
  /** Skill key → the label the data set scores. */
  labels: Map<string, string>
  /** Label → the keys of its skills (a LiveMCPBench name on several servers has several). */
  keys: Map<string, string[]>
}

interface BenchCatalog extends CatalogSkills {
  plane: Skillplane
  close(): Promise<void>
}

function catalogSkills(tools: readonly CatalogTool[]): CatalogSkills {
  const keys = skillKeys(tools.map((t) => t.label))
  const byLabel = new Map<string, string[]>()
  keys.forEach((key, i) => byLabel.set(tools[i]!.label, [...(byLabel.get(tools[i]!.label) ?? []), key]))
  return {
    skills: tools.map((tool, i) => toSkill(tool, keys[i]!)),
    labels: new Map(keys.map((key, i) => [key, tools[i]!.label])),
    keys: byLabel,
  }
}

/** A plane on a fresh SQLite file whose registry holds the skills, synced to its catalog as `serve` does. */
async function openCatalog(catalog: CatalogSkills): Promise<BenchCatalog> {
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-discovery-'))
  const plane = await createSkillplane({ config: { skills: catalog.skills }, dataDir, logger: pino({ level: 'silent' }), sync: true })
  return {
    ...catalog,
    plane,
    async close() {
      await plane.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

interface DiscoverResult {
  results: Array<{ key: string; score: number; why: string[] }>
}

async function discover(plane: Skillplane, query: string, limit: number, conversationId?: string): Promise<string[]> {
  const envelope = await plane.invoke('discover_skills', { query, limit }, { caller: BENCH_CALLER, conversationId })
  if (!envelope.ok) throw new Error(`discover_skills failed for ${JSON.stringify(query)}: ${envelope.error.code}: ${envelope.error.message}`)
  return (envelope.data as DiscoverResult).results.map((r) => r.key)
}

/** Skillplane's rankings as labels; a key the data set does not know (a built-in) holds its place as a miss. */
async function scoreSkillplane(catalog: BenchCatalog, queries: readonly LabelledQuery[]): Promise<RetrievalFigures> {
  const judged = []
  for (const { query, relevant } of queries) {
    const keys = await discover(catalog.plane, query, LIMIT)
    judged.push({ ranked: keys.map((key) => catalog.labels.get(key) ?? `(${key})`), relevant })
  }
  return scoreRankings(judged)
}

function referenceRankings(set: RetrievalSet, queries: readonly LabelledQuery[], depth: number) {
  const bm25 = new ReferenceBm25(set.tools.map(referenceText))
  return queries.map(({ query, relevant }) => ({
    ranked: bm25
      .rank(query)
      .slice(0, depth)
      .map((i) => set.tools[i]!.label),
    relevant,
  }))
}

function scoreReference(set: RetrievalSet, queries: readonly LabelledQuery[], depth: number): RetrievalFigures {
  return scoreRankings(referenceRankings(set, queries, depth))
}

/** Discover in a fresh conversation, then call each labelled skill in it: the engine's learning path. */
async function feedHistory(catalog: BenchCatalog, history: readonly LabelledQuery[]): Promise<number> {
  let followed = 0
  for (const [n, { query, relevant }] of history.entries()) {
    const conversationId = `bench-history-${n}`
    const returned = new Set(await discover(catalog.plane, query, FEED_LIMIT, conversationId))
    const keys = relevant.flatMap((label) => catalog.keys.get(label) ?? [])
    if (keys.some((key) => returned.has(key))) followed++
    for (const key of keys) {
      const envelope = await catalog.plane.invoke(key, {}, { caller: BENCH_CALLER, conversationId })
      if (!envelope.ok) throw new Error(`history call of ${key} failed: ${envelope.error.code}: ${envelope.error.message}`)
    }
  }
  return followed
}

/** Every tool of both catalogs again and again, words shuffled and keys numbered, to 10,000 skills. */
function syntheticCatalog(tools: readonly CatalogTool[], size: number, random: () => number): CatalogTool[] {
  return Array.from({ length: size }, (_, i) => {
    const tool = tools[i % tools.length]!
    const copy = Math.floor(i / tools.length)
    if (copy === 0) return tool
    const words = shuffled(tool.description.split(/\s+/), random).join(' ')
    return { ...tool, label: `${tool.label}_${copy}`, description: words }
  })
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

async function measureSpeed(tools: readonly CatalogTool[], queries: readonly string[]): Promise<SpeedFigures> {
  const random = mulberry32(SEED)
  const skills = catalogSkills(syntheticCatalog(tools, SPEED_SKILLS, random))
  const sample = Array.from({ length: SPEED_WARMUP + SPEED_QUERIES }, () => queries[Math.floor(random() * queries.length)]!)
  const gc = collectGarbage()
  const heap = () => {
    gc()
    return process.memoryUsage().heapUsed / 2 ** 20
  }
  const heapBefore = heap()
  const started = performance.now()
  const catalog = await openCatalog(skills)
  try {
    const startMs = performance.now() - started
    const startHeapMB = heap() - heapBefore
    const index = await measureIndex(catalog.plane, heap)
    const firstStarted = performance.now()
    await discover(catalog.plane, sample[0]!, LIMIT)
    const firstQueryMs = performance.now() - firstStarted
    for (const query of sample.slice(1, SPEED_WARMUP)) await discover(catalog.plane, query, LIMIT)
    const latencies: number[] = []
    for (const query of sample.slice(SPEED_WARMUP)) {
      const t0 = performance.now()
      await discover(catalog.plane, query, LIMIT)
      latencies.push(performance.now() - t0)
    }
    latencies.sort((a, b) => a - b)
    const engine: number[] = []
    for (const query of sample.slice(SPEED_WARMUP)) {
      const t0 = performance.now()
      await catalog.plane.skills.discovery.discover(BENCH_CALLER, { query, limit: LIMIT })
      engine.push(performance.now() - t0)
    }
    engine.sort((a, b) => a - b)
    return {
      engineP50Ms: percentile(engine, 0.5),
      engineP99Ms: percentile(engine, 0.99),
      skills: skills.skills.length,
      queries: latencies.length,
      startMs,
      firstQueryMs,
      startHeapMB,
      index,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
    }
  } finally {
    await catalog.close()
  }
}

/** The reference BM25 on every set, full rankings: the figures the data README publishes. */
export function runReferenceBench(): Record<SetName, RetrievalFigures> {
  const data = loadDiscoveryData()
  return {
    metatoolSingle: scoreReference(data.metatoolSingle, data.metatoolSingle.queries, Infinity),
    metatoolMulti: scoreReference(data.metatoolMulti, data.metatoolMulti.queries, Infinity),
    liveMcpBench: scoreReference(data.liveMcpBench, data.liveMcpBench.queries, Infinity),
  }
}

/** A query as an agent would ask it: its first MAX_QUERY characters, to both rankers alike. */
function asked(queries: readonly LabelledQuery[]): LabelledQuery[] {
  return queries.map((q) => ({ ...q, query: q.query.slice(0, MAX_QUERY) }))
}

export async function runDiscoveryQualityBench(log: (line: string) => void = () => {}): Promise<DiscoveryQualityResult> {
  const data = loadDiscoveryData()
  const reference = runReferenceBench()
  const compare = async (catalog: BenchCatalog, set: RetrievalSet): Promise<Comparison> => {
    log(`  ${set.name}: ${set.queries.length} queries over ${set.tools.length} skills`)
    const queries = asked(set.queries)
    return { skillplane: await scoreSkillplane(catalog, queries), reference: scoreReference(set, queries, LIMIT) }
  }

  const metatool = await openCatalog(catalogSkills(data.metatoolSingle.tools))
  let withoutHistory: Record<SetName, Comparison>
  try {
    const metatoolSingle = await compare(metatool, data.metatoolSingle)
    const metatoolMulti = await compare(metatool, data.metatoolMulti)
    const live = await openCatalog(catalogSkills(data.liveMcpBench.tools))
    try {
      withoutHistory = { metatoolSingle, metatoolMulti, liveMcpBench: await compare(live, data.liveMcpBench) }
    } finally {
      await live.close()
    }
  } finally {
    await metatool.close()
  }

  const split = shuffled(asked(data.metatoolSingle.queries), mulberry32(SEED))
  const history = split.slice(0, split.length >> 1)
  const heldOut = split.slice(split.length >> 1)
  const learning = await openCatalog(catalogSkills(data.metatoolSingle.tools))
  let withHistory: DiscoveryQualityResult['withHistory']
  try {
    log(`  MetaTool with history: feeding ${history.length} queries (discover, then call)`)
    const followed = await feedHistory(learning, history)
    log(`  MetaTool with history: scoring ${heldOut.length} held-out queries`)
    withHistory = {
      seed: SEED,
      fed: history.length,
      followed,
      skillplane: await scoreSkillplane(learning, heldOut),
      reference: scoreReference(data.metatoolSingle, heldOut, LIMIT),
    }
  } finally {
    await learning.close()
  }

  log(`  speed: ${SPEED_SKILLS.toLocaleString('en-US')} skills, ${SPEED_QUERIES} queries`)
  const speed = await measureSpeed(
    [...data.metatoolSingle.tools, ...data.liveMcpBench.tools],
    asked([...data.metatoolSingle.queries, ...data.liveMcpBench.queries]).map((q) => q.query),
  )
  return { reference, withoutHistory, withHistory, speed }
}

const SET_TITLES: Record<SetName, string> = { metatoolSingle: 'MetaTool single-tool', metatoolMulti: 'MetaTool two-tool', liveMcpBench: 'LiveMCPBench' }
const FIGURES = Object.keys(FIGURE_NAMES) as FigureName[]
const pct = (n: number) => n.toFixed(2)
const yesNo = (met: boolean) => (met ? '**yes**' : '**no**')
const signedMB = (mb: number) => `${mb < 0 ? '−' : '+'}${Math.abs(mb).toFixed(1)} MB`
const atLeast = (c: Comparison) => FIGURES.every((f) => c.skillplane[f] >= c.reference[f])

/** The published reference figures beside the reference BM25's own, one row per published figure. */
export function referenceTable(reference: Record<SetName, RetrievalFigures>): string {
  const rows = (Object.keys(PUBLISHED) as SetName[]).flatMap((set) =>
    Object.entries(PUBLISHED[set]).map(([figure, published]) => {
      const measured = reference[set][figure as FigureName]
      return `| ${SET_TITLES[set]} (${reference[set].queries}) | ${FIGURE_NAMES[figure as FigureName]} | ${pct(published)} | ${pct(measured)} | ${measured >= published ? '+' : ''}${pct(measured - published)} |`
    }),
  )
  return ['| set (queries) | figure | README | reference BM25 | difference |', '| --- | --- | --- | --- | --- |', ...rows].join('\n')
}

function comparisonRows(title: string, c: Comparison, target: (c: Comparison) => string): string[] {
  const cells = (f: RetrievalFigures) => FIGURES.map((name) => pct(f[name])).join(' | ')
  return [`| ${title} | skillplane | ${cells(c.skillplane)} | ${target(c)} |`, `| | reference BM25 | ${cells(c.reference)} | |`]
}

function historyMet(r: DiscoveryQualityResult): boolean {
  return r.withHistory.skillplane.recall5 >= TARGETS.heldOutRecall5 && r.withHistory.skillplane.ndcg5 >= TARGETS.heldOutNdcg5
}

/** Rows for bench/results.md's table of targets. */
export function discoveryTargetRows(r: DiscoveryQualityResult): string[] {
  const w = r.withoutHistory
  const h = r.withHistory.skillplane
  const s = r.speed
  return [
    `| discover_skills without history ≥ the reference BM25 on every figure of MetaTool and LiveMCPBench | MetaTool single Recall@5 ${pct(w.metatoolSingle.skillplane.recall5)} vs ${pct(w.metatoolSingle.reference.recall5)}, two-tool ${pct(w.metatoolMulti.skillplane.recall5)} vs ${pct(w.metatoolMulti.reference.recall5)}, LiveMCPBench ${pct(w.liveMcpBench.skillplane.recall5)} vs ${pct(w.liveMcpBench.reference.recall5)} (every figure below) | ${yesNo(Object.values(w).every(atLeast))} |`,
    `| discover_skills with history: held-out Recall@5 ≥ ${TARGETS.heldOutRecall5}, nDCG@5 ≥ ${TARGETS.heldOutNdcg5} | Recall@5 ${pct(h.recall5)}, nDCG@5 ${pct(h.ndcg5)} | ${yesNo(historyMet(r))} |`,
    `| discovery query p99 < ${TARGETS.p99Ms} ms over ${s.skills.toLocaleString('en-US')} skills | engine p50 ${s.engineP50Ms.toFixed(2)} ms, p99 ${s.engineP99Ms.toFixed(2)} ms (through the pipeline p50 ${s.p50Ms.toFixed(2)}, p99 ${s.p99Ms.toFixed(2)}) | ${yesNo(s.engineP99Ms < TARGETS.p99Ms)} |`,
    `| discovery index build < ${TARGETS.indexMs / 1000} s for ${s.skills.toLocaleString('en-US')} skills | ${s.index.buildMs.toFixed(0)} ms | ${yesNo(s.index.buildMs < TARGETS.indexMs)} |`,
  ]
}

/** The benchmark's section of bench/results.md (and what the bench prints when run alone). */
export function discoveryQualityReport(r: DiscoveryQualityResult): string {
  const header = `| set | ranker | ${FIGURES.map((f) => FIGURE_NAMES[f]).join(' | ')} | target |`
  const rule = `| --- | --- | ${FIGURES.map(() => '---').join(' | ')} | --- |`
  const noHistoryTarget = (c: Comparison) => `≥ reference on every figure: ${yesNo(atLeast(c))}`
  const h = r.withHistory
  const s = r.speed
  return `## Discovery quality and speed

\`discover_skills\` (limit ${LIMIT}) over public tool-retrieval data (bench/data/README.md), scored per
query with binary relevance and averaged, in percent: Acc@1, Recall@k (relevant in the top k ÷
relevant), nDCG@k (log2 discount), MRR (to depth ${LIMIT} on both rankers), all-relevant-in-top-5.
Beside it, a plain Okapi BM25 of the bench's own (bench/reference-bm25.ts) on the same queries,
each cut to its first ${MAX_QUERY.toLocaleString('en-US')} characters for both (the most \`discover_skills\` takes; 5 queries are longer).
Each catalog's tools are code skills (key from the tool name, its description; LiveMCPBench tools
also their argument names as input schema, their server's category and name as a tag).

### The reference BM25 against the published figures

Full rankings; k1 = 1.5, b = 0.75, Lucene idf, tool name (camelCase split) + description,
lower-cased alphanumeric tokens, a ${STOP_WORDS.size}-word stop list, no stemming.

${referenceTable(r.reference)}

### Without usage history

${header}
${rule}
${(Object.keys(SET_TITLES) as SetName[]).flatMap((set) => comparisonRows(`${SET_TITLES[set]} (${r.withoutHistory[set].skillplane.queries})`, r.withoutHistory[set], noHistoryTarget)).join('\n')}

### With usage history (MetaTool single-tool)

The distinct queries shuffled with seed ${h.seed}: ${h.fed.toLocaleString('en-US')} fed as history through the learning path
(\`discover_skills\` with limit ${FEED_LIMIT} in a fresh conversation, then a call of the labelled skill in it;
the labelled skill was among the results for ${h.followed.toLocaleString('en-US')} of them), the other
${h.skillplane.queries.toLocaleString('en-US')} scored. No scored query was fed.

${header}
${rule}
${comparisonRows(`held-out (${h.skillplane.queries})`, h, () => `Recall@5 ≥ ${TARGETS.heldOutRecall5} and nDCG@5 ≥ ${TARGETS.heldOutNdcg5}: ${yesNo(historyMet(r))}`).join('\n')}

### Speed over ${s.skills.toLocaleString('en-US')} skills

Both catalogs' tools repeated with their description words shuffled and keys numbered, registered
as code skills; ${s.queries.toLocaleString('en-US')} \`plane.invoke('discover_skills')\` calls in sequence as an admin (the whole
pipeline, audit included) after a warm-up, then the same queries asked of the engine directly. The
target is the engine's: the pipeline adds a call's two durable audit commits (and SQLite's
checkpoints in its p99), which issue 15 makes cheaper for every skill alike.

| figure | value | target | met |
| --- | --- | --- | --- |
| query p50, the engine (\`plane.discovery.discover\`) | ${s.engineP50Ms.toFixed(2)} ms | | |
| query p99, the engine | ${s.engineP99Ms.toFixed(2)} ms | < ${TARGETS.p99Ms} ms | ${yesNo(s.engineP99Ms < TARGETS.p99Ms)} |
| p50 through the pipeline (\`plane.invoke('discover_skills')\`, its two audit commits included) | ${s.p50Ms.toFixed(2)} ms | | |
| p99 through the pipeline | ${s.p99Ms.toFixed(2)} ms | | |
| index build (\`plane.discovery.ready()\` right after start, ${s.index.skills.toLocaleString('en-US')} skills indexed) | ${s.index.buildMs.toFixed(0)} ms | < ${TARGETS.indexMs} ms | ${yesNo(s.index.buildMs < TARGETS.indexMs)} |
| index memory (heap growth across the build, after a full GC) | ${signedMB(s.index.heapMB)} | | |
| plane start with the skills defined (registration, catalog sync) | ${s.startMs.toFixed(0)} ms, heap ${signedMB(s.startHeapMB)} | | |
| first query after the build | ${s.firstQueryMs.toFixed(2)} ms | | |
`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runDiscoveryQualityBench((line) => console.error(line))
  console.log(discoveryQualityReport(result))
}

export const discoverySection: BenchSection = {
  name: 'discovery',
  title: 'Discovery quality and speed',
  async run(log) {
    const r = await runDiscoveryQualityBench(log)
    return { targets: parseTargetRows(discoveryTargetRows(r), /history/), body: discoveryQualityReport(r) }
  },
}
