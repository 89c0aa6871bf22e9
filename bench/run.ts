import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { auditSection } from './audit.bench.js'
import { cliSection } from './cli.bench.js'
import { discoverySection } from './discovery-quality.bench.js'
import { discoverySpeedSection } from './discovery-speed.bench.js'
import { edgeSection } from './edge.bench.js'
import { httpSection } from './http.bench.js'
import { cpuMicros } from './per-call.js'
import { managersSection } from './managers.bench.js'
import { mcpServerSection } from './mcp-server.bench.js'
import { mcpSection } from './mcp.bench.js'
import { packSection } from './pack.bench.js'
import { pipelineSection } from './pipeline.bench.js'
import { scaleSection } from './scale.bench.js'
import type { BenchSection, TargetRow } from './section.js'
import { loadingSection } from './skill-loading.bench.js'
import { viewsSection } from './views.bench.js'

// In the order they run and appear in results.md.
const SECTIONS: BenchSection[] = [
  pipelineSection,
  httpSection,
  loadingSection,
  cliSection,
  packSection,
  mcpSection,
  mcpServerSection,
  edgeSection,
  discoverySection,
  discoverySpeedSection,
  scaleSection,
  auditSection,
  viewsSection,
  managersSection,
]

const RESULTS = fileURLToPath(new URL('./results.md', import.meta.url))
const KEPT = fileURLToPath(new URL('./results/', import.meta.url))

/** What bench/results/<name>.json keeps of a section: its last good figures, and the last failure if it came after. */
interface Kept {
  name: string
  title: string
  measured: string
  commit: string
  node: string
  machine: string
  /** The 1-minute load average when the section started and when it ended. */
  load: { before: number; after: number | null }
  /** Cores other processes kept busy while the section ran, on average (the machine's busy time less this process's and its children's). */
  othersCores?: number
  seconds: number
  targets: TargetRow[]
  body: string
  failed?: { date: string; commit: string; reason: string }
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench', 'console', 'package.json'], { encoding: 'utf8' }).trim() !== ''
    return dirty ? `${head} (uncommitted changes)` : head
  } catch {
    return 'unknown'
  }
}

const keptFile = (name: string) => `${KEPT}${name}.json`

function readKept(name: string): Kept | null {
  return existsSync(keptFile(name)) ? (JSON.parse(readFileSync(keptFile(name), 'utf8')) as Kept) : null
}

const cores = cpus().length
const machine = `${cores} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${process.platform}/${process.arch}`

/**
 * A speed target missed while the machine ran more than it has cores for says nothing about the
 * code: its verdict is "not measurable here". A fact (a size, a count, completeness) keeps its verdict.
 */
function judged(row: TargetRow, k: Pick<Kept, 'load' | 'othersCores'>): TargetRow {
  // Figures kept before other processes' CPU was measured fall back to the load average, which lags and counts the bench itself.
  const shared = k.othersCores === undefined ? Math.max(k.load.before, k.load.after ?? k.load.before) > cores : k.othersCores > SHARED_CORES
  return shared && !row.fact && row.verdict !== 'not measurable here' ? { ...row, verdict: 'not measurable here' } : row
}

// More than this much of a core taken by other processes, on average, and a speed figure says more about them than about us.
const SHARED_CORES = 0.3
const MICROS_PER_TICK = 1e6 / 100

/** The machine's busy CPU time and this process's own (its children's included, waited for or running), in µs. */
function cpuNow(): { busy: number; own: number } {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  return { busy: (user! + nice! + system! + irq! + softirq! + steal!) * MICROS_PER_TICK, own: cpuMicros({ children: true }) }
}

function verdictCell(row: TargetRow): string {
  return row.verdict === 'not measurable here' ? 'not measurable here' : `**${row.verdict}**`
}

function others(from: { busy: number; own: number }, start: number): number {
  const now = cpuNow()
  const seconds = (performance.now() - start) / 1000
  return Math.max(0, (now.busy - from.busy - (now.own - from.own)) / 1e6 / seconds)
}

const day = (iso: string) => iso.slice(0, 10)
const othersText = (k: Pick<Kept, 'othersCores'>) => (k.othersCores === undefined ? '' : `, other processes ${k.othersCores.toFixed(2)} cores`)
const loadText = (load: Kept['load']) =>
  load.after === null ? `${load.before.toFixed(1)} at the start` : `${load.before.toFixed(1)} → ${load.after.toFixed(1)}`

function render(kept: Kept[]): string {
  const rows = kept.flatMap((k) =>
    k.targets.map(
      (t) =>
        `| ${t.target} | ${t.figure} | ${verdictCell(t)} | [${k.name}](#${anchor(k.title)}), ${day(k.measured)}, load ${loadText(k.load)}${othersText(k)}${k.failed ? `; the run of ${day(k.failed.date)} failed` : ''} |`,
    ),
  )
  const sections = kept.map((k) => {
    const failed = k.failed
      ? `\n> **The last run of this section failed** (${k.failed.date}, at ${k.failed.commit}): ${k.failed.reason.split('\n')[0]}\n> The figures below are the last good ones, measured ${k.measured}.\n`
      : ''
    return `## ${k.title}
${failed}
Measured ${k.measured} at ${k.commit} (node ${k.node}, ${k.machine}); load average ${loadText(k.load)}${othersText(k)}${k.seconds > 0 ? ` over ${Math.round(k.seconds)} s` : ''}.

${k.body.replace(/^## [^\n]*\n+/, '').trim()}
`
  })
  return `# Benchmark results

Written by \`npm run bench\` (bench/run.ts) from the figures each section keeps in \`bench/results/<section>.json\`:
a section writes its own as soon as it finishes, so each one says when and under what load it was measured, and one
that fails keeps its last good figures, marked. \`npm run bench -- SECTION…\` runs some of them (${SECTIONS.map((s) => s.name).join(', ')}).
Every figure is set against a reference measured in the same run (a bare function call, a bare route, the floor of
the same commits), because these machines are noisy: the ratios travel better than the absolute numbers. Each section
says the 1-minute load average when it started → when it ended, and how many cores other processes kept busy meanwhile
(the machine's busy time less the bench's own and its children's): above ${SHARED_CORES} of a core, its speed targets read "not
measurable here" rather than yes or no (sizes, counts and audit completeness keep theirs).

## Targets

| target | figure | met | measured |
| --- | --- | --- | --- |
${rows.join('\n')}

${sections.join('\n')}`
}

// GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens.
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-')
}

function renderAll(): void {
  const kept = SECTIONS.map((s) => readKept(s.name)).filter((k): k is Kept => k !== null)
  writeFileSync(RESULTS, render(kept.map((k) => ({ ...k, targets: k.targets.map((t) => judged(t, k)) }))))
}

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const unknown = asked.filter((a) => !SECTIONS.some((s) => s.name === a))
if (unknown.length > 0) {
  console.error(`unknown section${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (sections: ${SECTIONS.map((s) => s.name).join(', ')})`)
  process.exit(2)
}
if (process.argv.includes('--render')) {
  renderAll()
  console.log(`wrote ${RESULTS} from bench/results/`)
  process.exit(0)
}
const chosen = asked.length === 0 ? SECTIONS : SECTIONS.filter((s) => asked.includes(s.name))
mkdirSync(KEPT, { recursive: true })
console.log(`node ${process.version}, ${machine}; sections: ${chosen.map((s) => s.name).join(', ')}`)

// The one promise the bench checks rather than times: every call that answered has its audit row.
const AUDITED = /\bevery\b.*(audited|ok row)/
const failures: string[] = []
for (const section of chosen) {
  const before = loadavg()[0]!
  const ticks = cpuNow()
  console.log(`${section.title} (load ${before.toFixed(2)})…`)
  const start = performance.now()
  const measured = new Date().toISOString()
  const at = commit()
  try {
    const result = await section.run((line) => console.log(line))
    const after = loadavg()[0]!
    const kept: Kept = {
      name: section.name,
      title: section.title,
      measured,
      commit: at,
      node: process.version,
      machine,
      load: { before, after },
      othersCores: others(ticks, start),
      seconds: (performance.now() - start) / 1000,
      targets: result.targets,
      body: result.body,
    }
    writeFileSync(keptFile(section.name), JSON.stringify(kept, null, 2) + '\n')
    console.log(`  done in ${kept.seconds.toFixed(0)} s, load ${loadText(kept.load)}${othersText(kept)}`)
    for (const t of result.targets) console.log(`  ${judged(t, kept).verdict}: ${t.target} (${t.figure})`)
    const broken = result.targets.filter((t) => t.verdict === 'no' && AUDITED.test(t.target))
    if (broken.length > 0) failures.push(`${section.name}: ${broken.map((t) => `${t.target}: ${t.figure}`).join('; ')}`)
  } catch (error) {
    const reason = error instanceof Error ? (error.stack ?? error.message) : String(error)
    console.error(`  ${section.name} failed after ${((performance.now() - start) / 1000).toFixed(0)} s: ${reason}`)
    failures.push(`${section.name}: ${reason.split('\n')[0]}`)
    const failed = { date: measured, commit: at, reason }
    const previous: Kept = readKept(section.name) ?? {
      ...{ name: section.name, title: section.title, measured: 'never', commit: '—', node: process.version, machine },
      ...{ load: { before, after: loadavg()[0]! }, seconds: 0, targets: [], body: 'No run of this section has finished yet.' },
    }
    writeFileSync(keptFile(section.name), JSON.stringify({ ...previous, failed }, null, 2) + '\n')
  }
  renderAll()
}
console.log(`wrote ${RESULTS}`)
if (failures.length > 0) {
  console.error(`failed:\n${failures.map((f) => `  ${f}`).join('\n')}`)
  process.exitCode = 1
}
