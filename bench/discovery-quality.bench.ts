import { verdict, type BenchSection, type TargetRow, type Verdict } from './section.js'
import { fileURLToPath } from 'node:url'
import { DEFAULT_RANKING } from '../src/discovery/index.js'
import { asked, catalogSkills, discover, MAX_QUERY, mulberry32, openCatalog, shuffled, type BenchCatalog } from './discovery-catalog.js'
import { loadDiscoveryData, type CatalogTool, type LabelledQuery, type RetrievalSet } from './discovery-data.js'
import { expandedTexts, ReferenceBm25, referenceText, STOP_WORDS } from './reference-bm25.js'
import { describePoint, GRID, GridEvaluator, overridesOf, startingPoint, type GridPoint, type TunedSet } from './ranking-grid.js'
import { FIGURE_NAMES, scoreRankings, type FigureName, type RetrievalFigures } from './retrieval-metrics.js'
import { BENCH_CALLER } from './support.js'

/** What `discover_skills` is asked for when scored: the metrics look at most 10 deep. */
const LIMIT = 10
/** The history-feeding discover asks for what an agent would look at; the engine learns a called skill's request even when discovery did not return it. */
const FEED_LIMIT = 5
/** MetaTool's single-tool and held-out sets are sampled to this many queries FOR TUNING ONLY; every reported figure is over the whole set. */
const TUNING_SAMPLE = 1_000
/** `DISCOVERY_BENCH_QUERIES=n` cuts every scored set, history feed and tuning sample to its first n queries: a quick run that proves the bench works, not figures to report. */
const CUT = Number(process.env.DISCOVERY_BENCH_QUERIES) || Infinity
const SEED = 13

/** The plain BM25 figures `bench/data/README.md` publishes, which the reference must reproduce. */
export const PUBLISHED: Record<'metatoolSingle' | 'metatoolMulti' | 'liveMcpBench', Partial<Record<FigureName, number>>> = {
  metatoolSingle: { acc1: 37.7, recall5: 54.45, ndcg10: 48.62, mrr: 45.72 },
  metatoolMulti: { recall5: 46.58, allIn5: 20.72 },
  liveMcpBench: { recall5: 34.99, ndcg5: 31.21, recall10: 41.82 },
}

type SetName = keyof typeof PUBLISHED

/** The groups parameters are chosen without: a set's figures come from parameters fixed on the other groups only. */
export const GROUPS = ['MetaTool', 'LiveMCPBench', 'Hugging Face', 'TensorFlow Hub', 'Torch Hub'] as const
export type GroupName = (typeof GROUPS)[number]

/** One scored set's figures, with the parameters chosen without its group. */
export interface SetFigures {
  title: string
  group: GroupName
  history: boolean
  /** Chosen on the other groups (leave-one-set-out). */
  parameters: GridPoint
  skillplane: RetrievalFigures
  /** The same parameters with relations 0. */
  relationsOff: RetrievalFigures
  /** Plain BM25 on the same queries, cut to the same depth (so MRR is MRR@10 on both). */
  bm25: RetrievalFigures
  /** With history only: each skill's history queries appended to its text, then the same plain BM25. */
  docExpansion?: RetrievalFigures
}

export interface HistoryFeed {
  /** History queries fed through discover then call. */
  fed: number
  /** Of those, how many had a labelled skill among the discover results. */
  followed: number
  /** Skills of the catalog with at least one history query. */
  skillsTaught: number
}

export interface DiscoveryQualityResult {
  /** The reference BM25 over full rankings: what the README publishes. */
  reference: Record<SetName, RetrievalFigures>
  sets: SetFigures[]
  /** Queries per set were cut (DISCOVERY_BENCH_QUERIES): a check that the bench runs, not figures. */
  cut: number | null
  seed: number
  history: { metatool: HistoryFeed; torchHub: HistoryFeed }
  tuning: {
    /** The parameters chosen with each group held out, and on every group together (what the product default should be). */
    heldOut: Record<GroupName, GridPoint>
    all: GridPoint
    /** Sets evaluated at a grid point (each once per point that can change it). */
    evaluations: number
    seconds: number
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

/** The same, asked of the engine itself (no pipeline, no audit): what the parameter grid is evaluated with. */
async function scoreEngine(catalog: BenchCatalog, queries: readonly LabelledQuery[]): Promise<RetrievalFigures> {
  const judged = []
  for (const { query, relevant } of queries) {
    const answer = await catalog.plane.skills.discovery.discover(BENCH_CALLER, { query, limit: LIMIT })
    judged.push({ ranked: answer.results.map((r) => catalog.labels.get(r.key) ?? `(${r.key})`), relevant })
  }
  return scoreRankings(judged)
}

function referenceRankings(tools: readonly CatalogTool[], texts: readonly string[], queries: readonly LabelledQuery[], depth: number) {
  const bm25 = new ReferenceBm25(texts)
  return queries.map(({ query, relevant }) => ({
    ranked: bm25
      .rank(query)
      .slice(0, depth)
      .map((i) => tools[i]!.label),
    relevant,
  }))
}

/** Plain BM25 over each tool's text. */
function scoreReference(set: RetrievalSet, queries: readonly LabelledQuery[], depth: number): RetrievalFigures {
  return scoreRankings(referenceRankings(set.tools, set.tools.map(referenceText), queries, depth))
}

/** The doc-expansion reference: each tool's history queries appended to its text, then the same plain BM25. */
function scoreDocExpansion(set: RetrievalSet, history: readonly LabelledQuery[], queries: readonly LabelledQuery[]): RetrievalFigures {
  return scoreRankings(referenceRankings(set.tools, expandedTexts(set.tools, history), queries, LIMIT))
}

/** Discover in a fresh conversation, then call each labelled skill in it: the engine's learning path. */
async function feedHistory(catalog: BenchCatalog, history: readonly LabelledQuery[], conversations: string): Promise<number> {
  let followed = 0
  for (const [n, { query, relevant }] of history.entries()) {
    const conversationId = `${conversations}-${n}`
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

interface ScoredSet extends TunedSet {
  group: GroupName
  title: string
  set: RetrievalSet
  catalog: BenchCatalog
  queries: LabelledQuery[]
  /** What the grid is evaluated on: the queries, or a seeded sample of MetaTool's largest. */
  tuning: LabelledQuery[]
  /** The history fed to its plane, for the doc-expansion reference. */
  fed?: LabelledQuery[]
}

function sample(queries: readonly LabelledQuery[], size: number, random: () => number): LabelledQuery[] {
  return queries.length <= size ? [...queries] : shuffled(queries, random).slice(0, size)
}

async function feed(catalog: BenchCatalog, history: readonly LabelledQuery[], name: string, log: (line: string) => void): Promise<HistoryFeed> {
  log(`  ${name}: feeding ${history.length} history queries (discover_skills limit ${FEED_LIMIT}, then a call of each labelled skill)`)
  const started = performance.now()
  const followed = await feedHistory(catalog, history, `bench-history-${name.replace(/\W+/g, '-')}`)
  log(`  ${name}: fed in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return { fed: history.length, followed, skillsTaught: new Set(history.flatMap((q) => q.relevant)).size }
}

export async function runDiscoveryQualityBench(log: (line: string) => void = () => {}): Promise<DiscoveryQualityResult> {
  const data = loadDiscoveryData()
  const reference = runReferenceBench()
  const cut = (queries: readonly LabelledQuery[]) => asked(queries.slice(0, CUT))
  const random = mulberry32(SEED)
  // The seeded half split of MetaTool's distinct queries: the first half history, the second held out.
  const split = shuffled(data.metatoolSingle.queries, mulberry32(SEED))
  const metatoolHistory = cut(split.slice(0, split.length >> 1))
  const metatoolHeldOut = cut(split.slice(split.length >> 1))
  const torchHistory = cut(data.torchHubTrain)

  const opened: BenchCatalog[] = []
  const open = async (set: RetrievalSet) => {
    const catalog = await openCatalog(catalogSkills(set.tools))
    opened.push(catalog)
    return catalog
  }
  try {
    const metatool = await open(data.metatoolSingle)
    const metatoolLearned = await open(data.metatoolSingle)
    const torch = await open(data.torchHub)
    const torchLearned = await open(data.torchHub)
    const history = {
      metatool: await feed(metatoolLearned, metatoolHistory, 'MetaTool', log),
      torchHub: await feed(torchLearned, torchHistory, 'Torch Hub', log),
    }
    const scored = (group: GroupName, title: string, set: RetrievalSet, catalog: BenchCatalog, queries: LabelledQuery[], fed?: LabelledQuery[]): ScoredSet => ({
      name: title,
      group,
      title,
      history: fed !== undefined,
      set,
      catalog,
      queries,
      tuning: sample(queries, TUNING_SAMPLE, random),
      ...(fed && { fed }),
    })
    const sets: ScoredSet[] = [
      scored('MetaTool', 'MetaTool single-tool', data.metatoolSingle, metatool, cut(data.metatoolSingle.queries)),
      scored('MetaTool', 'MetaTool two-tool', data.metatoolMulti, metatool, cut(data.metatoolMulti.queries)),
      scored('MetaTool', 'MetaTool held-out half', data.metatoolSingle, metatoolLearned, metatoolHeldOut, metatoolHistory),
      scored('LiveMCPBench', 'LiveMCPBench', data.liveMcpBench, await open(data.liveMcpBench), cut(data.liveMcpBench.queries)),
      scored('Hugging Face', 'Hugging Face', data.huggingFace, await open(data.huggingFace), cut(data.huggingFace.queries)),
      scored('TensorFlow Hub', 'TensorFlow Hub', data.tensorflowHub, await open(data.tensorflowHub), cut(data.tensorflowHub.queries)),
      scored('Torch Hub', 'Torch Hub', data.torchHub, torch, cut(data.torchHub.queries)),
      scored('Torch Hub', 'Torch Hub eval', data.torchHub, torchLearned, cut(data.torchHub.queries), torchHistory),
    ]

    // Every parameter is chosen on the engine directly (fast) over the tuning samples; ranking is a query-time matter, so the learned history stays.
    log(`  choosing parameters: coordinate descent over ${GRID.map((c) => c.name).join(', ')}, once per held-out group and once on all`)
    const tuningStarted = performance.now()
    const grid = new GridEvaluator(sets, async (set: ScoredSet, overrides) => {
      set.catalog.plane.skills.discovery.setRanking(overrides)
      return scoreEngine(set.catalog, set.tuning)
    })
    const start = startingPoint(DEFAULT_RANKING)
    const heldOut = {} as Record<GroupName, GridPoint>
    for (const group of GROUPS) {
      heldOut[group] = await grid.choose(start, group)
      log(`    without ${group}: ${describePoint(heldOut[group])} (${grid.evaluations} set evaluations so far)`)
    }
    const all = await grid.choose(start)
    log(`    on every group: ${describePoint(all)}`)
    const tuning = { heldOut, all, evaluations: grid.evaluations, seconds: (performance.now() - tuningStarted) / 1000 }

    const figures: SetFigures[] = []
    for (const s of sets) {
      log(`  ${s.title}: ${s.queries.length} queries over ${s.set.tools.length} skills${s.fed ? `, ${s.fed.length} history queries fed` : ''}`)
      const parameters = heldOut[s.group]
      const discovery = s.catalog.plane.skills.discovery
      discovery.setRanking(overridesOf(parameters))
      const skillplane = await scoreSkillplane(s.catalog, s.queries)
      discovery.setRanking({ ...overridesOf(parameters), relations: 0 })
      const relationsOff = await scoreSkillplane(s.catalog, s.queries)
      figures.push({
        title: s.title,
        group: s.group,
        history: s.history,
        parameters,
        skillplane,
        relationsOff,
        bm25: scoreReference(s.set, s.queries, LIMIT),
        ...(s.fed && { docExpansion: scoreDocExpansion(s.set, s.fed, s.queries) }),
      })
    }

    return { reference, sets: figures, cut: Number.isFinite(CUT) ? CUT : null, seed: SEED, history, tuning }
  } finally {
    for (const catalog of opened) await catalog.close()
  }
}

const SET_TITLES: Record<SetName, string> = { metatoolSingle: 'MetaTool single-tool', metatoolMulti: 'MetaTool two-tool', liveMcpBench: 'LiveMCPBench' }
const FIGURES = Object.keys(FIGURE_NAMES) as FigureName[]
/** What the with-history target compares with the doc-expansion reference. */
const HISTORY_FIGURES: FigureName[] = ['recall5', 'ndcg5', 'allIn5']
const pct = (n: number) => n.toFixed(2)
const atLeast = (a: RetrievalFigures, b: RetrievalFigures, figures: FigureName[] = FIGURES) => figures.every((f) => a[f] >= b[f])
/** The figures where `a` falls short of `b`, as `R@5 30.78 < 33.47`. */
const shortfalls = (a: RetrievalFigures, b: RetrievalFigures, figures: FigureName[] = FIGURES) =>
  figures.filter((f) => a[f] < b[f]).map((f) => `${FIGURE_NAMES[f]} ${pct(a[f])} < ${pct(b[f])}`)

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

function verdictFigure(sets: SetFigures[], failing: (s: SetFigures) => string[], passed: string): string {
  const misses = sets.map((s) => [s.title, failing(s)] as const).filter(([, m]) => m.length > 0)
  return misses.length === 0 ? passed : misses.map(([title, m]) => `${title}: ${m.join(', ')}`).join('; ')
}

/** Rows for bench/results.md's table of targets: facts (counts on fixed data). */
export function discoveryTargetRows(r: DiscoveryQualityResult): TargetRow[] {
  const without = r.sets.filter((s) => !s.history)
  const withHistory = r.sets.filter((s) => s.history)
  const cutNote = r.cut === null ? '' : ` (cut to ${r.cut} queries a set: not figures to report)`
  // A cut-down run proves the bench runs; it judges no target.
  const judge = (met: boolean): Verdict => (r.cut === null ? verdict(met) : 'not measurable here')
  return [
    {
      target: 'discover_skills without history ≥ plain BM25 on every figure of every set (parameters chosen without the set)',
      figure: verdictFigure(without, (s) => shortfalls(s.skillplane, s.bm25), `every figure of ${without.length} sets`) + cutNote,
      verdict: judge(without.every((s) => atLeast(s.skillplane, s.bm25))),
      fact: true,
    },
    {
      target: 'discover_skills with history ≥ the doc-expansion reference on Recall@5, nDCG@5 and all-in-top-5 (MetaTool held-out, Torch Hub)',
      figure:
        verdictFigure(
          withHistory,
          (s) => shortfalls(s.skillplane, s.docExpansion!, HISTORY_FIGURES),
          withHistory.map((s) => `${s.title} Recall@5 ${pct(s.skillplane.recall5)} vs ${pct(s.docExpansion!.recall5)}`).join(', '),
        ) + cutNote,
      verdict: judge(withHistory.every((s) => atLeast(s.skillplane, s.docExpansion!, HISTORY_FIGURES))),
      fact: true,
    },
    {
      target: 'discovery relations on ≥ off on every figure of every set',
      figure: verdictFigure(r.sets, (s) => shortfalls(s.skillplane, s.relationsOff), `every figure of ${r.sets.length} sets`) + cutNote,
      verdict: judge(r.sets.every((s) => atLeast(s.skillplane, s.relationsOff))),
      fact: true,
    },
  ]
}
/** Every set: skillplane with relations on and off beside plain BM25 and, with history, the doc-expansion reference. */
export function setsTable(sets: SetFigures[]): string {
  const cells = (f: RetrievalFigures) => FIGURES.map((name) => pct(f[name])).join(' | ')
  const rows = sets.flatMap((s) => [
    `| ${s.title} (${s.skillplane.queries}) | ${s.history ? 'yes' : 'no'} | skillplane | ${cells(s.skillplane)} |`,
    `| | | skillplane, relations off | ${cells(s.relationsOff)} |`,
    `| | | plain BM25 | ${cells(s.bm25)} |`,
    ...(s.docExpansion ? [`| | | doc expansion (history appended, then BM25) | ${cells(s.docExpansion)} |`] : []),
  ])
  return [
    `| set (queries) | history | ranker | ${FIGURES.map((f) => FIGURE_NAMES[f]).join(' | ')} |`,
    `| --- | --- | --- | ${FIGURES.map(() => '---').join(' | ')} |`,
    ...rows,
  ].join('\n')
}

function parametersTable(r: DiscoveryQualityResult): string {
  const header = `| chosen without | ${GRID.map((c) => c.name).join(' | ')} |`
  const row = (title: string, p: GridPoint) => `| ${title} | ${GRID.map((c) => String(p[c.name])).join(' | ')} |`
  return [
    header,
    `| --- | ${GRID.map(() => '---').join(' | ')} |`,
    ...GROUPS.map((g) => row(g, r.tuning.heldOut[g])),
    row('nothing (chosen on every group: the product default)', r.tuning.all),
    row("(today's DEFAULT_RANKING)", startingPoint(DEFAULT_RANKING)),
  ].join('\n')
}

/** The benchmark's section of bench/results.md (and what the bench prints when run alone). */
export function discoveryQualityReport(r: DiscoveryQualityResult): string {
  const h = r.history
  return `## Discovery quality
${r.cut === null ? '' : `\n> **Cut-down run** (DISCOVERY_BENCH_QUERIES=${r.cut}): each set, history feed and tuning sample cut to its first ${r.cut} queries. It shows the bench runs; its figures are not to be reported.\n`}
\`discover_skills\` (limit ${LIMIT}) over five public tool-retrieval sets (bench/data/README.md): MetaTool,
LiveMCPBench and Gorilla APIBench's Hugging Face, TensorFlow Hub and Torch Hub catalogs. Scored per
query with binary relevance and averaged, in percent: Acc@1, Recall@k (relevant in the top k ÷
relevant), nDCG@k (log2 discount), MRR (to depth ${LIMIT} on every ranker), all-relevant-in-top-5.
Beside it, two references of the bench's own on the same queries (bench/reference-bm25.ts): plain
Okapi BM25 over the words skillplane indexes, and, where there is history, doc expansion: each
skill's history queries appended to its text, then the same BM25. Queries are cut to their first
${MAX_QUERY.toLocaleString('en-US')} characters for all (the most \`discover_skills\` takes).
Each catalog's tools are code skills: key from the tool name (numbered when repeated), description
(APIBench: functionality + description), category (LiveMCPBench: the server's, APIBench: the domain);
LiveMCPBench tools also have their arguments as input schema and their server as a tag.

**History** goes only through the real path: \`discover_skills\` (limit ${FEED_LIMIT}) in a fresh conversation per
history query, then an ok call of each labelled skill in it. MetaTool: its distinct queries shuffled
with seed ${r.seed}, ${h.metatool.fed.toLocaleString('en-US')} fed (a labelled skill among the results for ${h.metatool.followed.toLocaleString('en-US')}; ${h.metatool.skillsTaught} skills taught), the
other half scored. Torch Hub: the ${h.torchHub.fed.toLocaleString('en-US')} train queries fed (followed ${h.torchHub.followed}; ${h.torchHub.skillsTaught} skills taught),
the eval queries scored. No scored query is fed.

**Parameters, leave-one-set-out.** The five data sets are the groups (MetaTool's three sets are one group,
Torch Hub's two another). For each group, coordinate descent over a grid of the ranking parameters
(\`plane.skills.discovery.setRanking\`) picks the point with the highest mean over the OTHER groups' sets of
Recall@5 + nDCG@5 + all-in-top-5, starting from today's defaults, and that group's figures are
reported with it: no figure below comes from parameters chosen on its own set. The grid is
evaluated on the engine directly, MetaTool's single-tool and held-out sets sampled to ${TUNING_SAMPLE.toLocaleString('en-US')} queries
each (seeded) for tuning only; the figures are through \`plane.invoke('discover_skills')\` on every query.
${r.tuning.evaluations} set evaluations took ${r.tuning.seconds.toFixed(0)} s. "Relations off" is the same point with relations 0.

${parametersTable(r)}

### Every set

${setsTable(r.sets)}

### The reference BM25 against the published figures

Full rankings; k1 = 1.5, b = 0.75, Lucene idf, tool name (camelCase split) + description,
lower-cased alphanumeric tokens, a ${STOP_WORDS.size}-word stop list, no stemming.

${referenceTable(r.reference)}
`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runDiscoveryQualityBench((line) => console.error(line))
  console.log(discoveryQualityReport(result))
}

export const discoverySection: BenchSection = {
  name: 'discovery',
  title: 'Discovery quality',
  async run(log) {
    const r = await runDiscoveryQualityBench(log)
    return { targets: discoveryTargetRows(r), body: discoveryQualityReport(r) }
  },
}
