import { parseTargetRows, type BenchSection } from './section.js'
import { fileURLToPath } from 'node:url'
import { asked, catalogSkills, discover, MAX_QUERY, mulberry32, openCatalog, shuffled, type BenchCatalog } from './discovery-catalog.js'
import { loadDiscoveryData, type LabelledQuery, type RetrievalSet } from './discovery-data.js'
import { ReferenceBm25, referenceText, STOP_WORDS } from './reference-bm25.js'
import { FIGURE_NAMES, scoreRankings, type FigureName, type RetrievalFigures } from './retrieval-metrics.js'
import { BENCH_CALLER } from './support.js'

/** What `discover_skills` is asked for when scored: the metrics look at most 10 deep. */
const LIMIT = 10
/** The history-feeding discover asks for as many results as discover_skills gives, so the labelled skill is among them as often as can be. */
const FEED_LIMIT = 50
const SEED = 13

export const TARGETS = { heldOutRecall5: 90, heldOutNdcg5: 80 }

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

/** The reference BM25 on every set, full rankings: the figures the data README publishes. */
export function runReferenceBench(): Record<SetName, RetrievalFigures> {
  const data = loadDiscoveryData()
  return {
    metatoolSingle: scoreReference(data.metatoolSingle, data.metatoolSingle.queries, Infinity),
    metatoolMulti: scoreReference(data.metatoolMulti, data.metatoolMulti.queries, Infinity),
    liveMcpBench: scoreReference(data.liveMcpBench, data.liveMcpBench.queries, Infinity),
  }
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

  return { reference, withoutHistory, withHistory }
}

const SET_TITLES: Record<SetName, string> = { metatoolSingle: 'MetaTool single-tool', metatoolMulti: 'MetaTool two-tool', liveMcpBench: 'LiveMCPBench' }
const FIGURES = Object.keys(FIGURE_NAMES) as FigureName[]
const pct = (n: number) => n.toFixed(2)
const yesNo = (met: boolean) => (met ? '**yes**' : '**no**')
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
  return [
    `| discover_skills without history ≥ the reference BM25 on every figure of MetaTool and LiveMCPBench | MetaTool single Recall@5 ${pct(w.metatoolSingle.skillplane.recall5)} vs ${pct(w.metatoolSingle.reference.recall5)}, two-tool ${pct(w.metatoolMulti.skillplane.recall5)} vs ${pct(w.metatoolMulti.reference.recall5)}, LiveMCPBench ${pct(w.liveMcpBench.skillplane.recall5)} vs ${pct(w.liveMcpBench.reference.recall5)} (every figure below) | ${yesNo(Object.values(w).every(atLeast))} |`,
    `| discover_skills with history: held-out Recall@5 ≥ ${TARGETS.heldOutRecall5}, nDCG@5 ≥ ${TARGETS.heldOutNdcg5} | Recall@5 ${pct(h.recall5)}, nDCG@5 ${pct(h.ndcg5)} | ${yesNo(historyMet(r))} |`,
  ]
}

/** The benchmark's section of bench/results.md (and what the bench prints when run alone). */
export function discoveryQualityReport(r: DiscoveryQualityResult): string {
  const header = `| set | ranker | ${FIGURES.map((f) => FIGURE_NAMES[f]).join(' | ')} | target |`
  const rule = `| --- | --- | ${FIGURES.map(() => '---').join(' | ')} | --- |`
  const noHistoryTarget = (c: Comparison) => `≥ reference on every figure: ${yesNo(atLeast(c))}`
  const h = r.withHistory
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
