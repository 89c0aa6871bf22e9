import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { createSkillplane, defineSkill, z } from '../src/index.js'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { AuditRepository, openDatabase } from '../src/store/index.js'
import { callsTool, says, scripted } from '../src/test-support/mock-model.js'
import { writeAuditRows } from './audit.bench.js'
import type { BenchSection, TargetRow } from './section.js'
import { benchDatabase, median } from './support.js'

/** One console view: the requests it makes before it first renders, each group's requests made at once. */
interface View {
  name: string
  requests: string[][]
}

export interface ViewFigure {
  view: string
  /** Median wall time of the view's requests over real HTTP, groups one after another. */
  ms: number
  /** Against the reference route measured in the same rounds. */
  ratio: number
  requests: string
}

export interface ViewsBenchResult {
  dialect: 'sqlite' | 'postgres'
  rows: number
  buildMs: number
  referenceMs: number
  views: ViewFigure[]
  load: { before: number[]; after: number[] }
}

const ROUNDS = 7
const TARGET_MS = 100
const RUN_TOOL_CALLS = 90
const TREE_CALLS = 500

// Words the generated error messages are made of: one in every failed row, one in few, one in none.
const ERRORS = ['upstream refused the connection', 'quota exceeded for project', 'certificate expired on host']
const errorOf = (i: number) => `${ERRORS[i % 3]} h${i % 97}${i % 1009 === 0 ? ' rarewordzebra' : ''}`

/** The fixture's skills: a leaf, a skill fanning out to it through ctx.invoke, and an agent calling the leaf. */
function fixtureConfig() {
  const leaf = defineSkill({
    key: 'bench_leaf',
    description: 'Answers at once',
    class: 'safe',
    agents: ['Bench'],
    input: z.object({ n: z.number() }),
    output: z.object({ n: z.number() }),
    execute: async ({ n }) => ({ n }),
  })
  const fan = defineSkill({
    key: 'bench_fan',
    description: 'Calls bench_leaf many times',
    class: 'safe',
    input: z.object({ calls: z.number() }),
    output: z.object({ calls: z.number() }),
    execute: async ({ calls }, ctx) => {
      for (let n = 0; n < calls; n++) await ctx.invoke('bench_leaf', { n })
      return { calls }
    },
  })
  const turns = Array.from({ length: RUN_TOOL_CALLS }, (_, n) => callsTool('bench_leaf', { n }, `call-${n}`))
  return {
    skills: [leaf, fan],
    agents: [{ name: 'Bench', description: 'Calls its leaf ninety times', model: scripted(...turns, says('done')), maxSteps: 100 }],
  }
}

function views(ids: { runId: string; fanCallId: string; leafCallId: string; conversationId: string }): View[] {
  const enc = encodeURIComponent
  return [
    { name: 'audit page', requests: [['/api/audit?limit=50', '/api/audit/histogram']] },
    { name: 'audit search, a word in a third of the failed rows', requests: [['/api/audit?limit=50&q=quota']] },
    { name: 'audit search, a rare word', requests: [['/api/audit?limit=50&q=rarewordzebra']] },
    { name: 'audit search, no match', requests: [['/api/audit?limit=50&q=nosuchwordanywhere']] },
    { name: 'audit search, a skill name with a status', requests: [['/api/audit?limit=50&q=skill_00042&status=error']] },
    { name: 'health table, skills over 24 h by p95', requests: [['/api/stats?dim=skill&window=24h&sort=p95&order=desc']] },
    { name: 'health table, 1,000 callers over 24 h by p95', requests: [['/api/stats?dim=caller&window=24h&sort=p95&order=desc']] },
    { name: 'health table, 1,000 callers over 30 days by error rate', requests: [['/api/stats?dim=caller&window=30d&sort=errorRate&order=desc']] },
    { name: 'health table, agents over 7 days by approval wait', requests: [['/api/stats?dim=agent&window=7d&sort=waitMedian&order=desc']] },
    {
      name: 'skill page with its health charts',
      requests: [['/api/skills/bench_leaf', '/api/audit?skill=bench_leaf&limit=10', '/api/stats/skill/skill_00042/series?window=24h']],
    },
    { name: `run page (${RUN_TOOL_CALLS} tool calls)`, requests: [[`/api/runs/${ids.runId}`, `/api/runs/${ids.runId}/tree`]] },
    { name: `call page, a tree of ${TREE_CALLS} calls`, requests: [[`/api/audit/${ids.fanCallId}`, `/api/audit/${ids.fanCallId}/tree`]] },
    { name: 'call page, a leaf of that tree', requests: [[`/api/audit/${ids.leafCallId}`, `/api/audit/${ids.leafCallId}/tree`]] },
    { name: 'conversation page (a run of 250 calls)', requests: [[`/api/conversations/${enc(ids.conversationId)}`]] },
  ]
}

async function measure(baseUrl: string, key: string, list: View[], log: (line: string) => void) {
  const get = async (path: string) => {
    const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${key}` } })
    const body = await response.text()
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${body.slice(0, 200)}`)
  }
  const paint = async (view: View) => {
    const start = performance.now()
    for (const group of view.requests) await Promise.all(group.map(get))
    return performance.now() - start
  }
  const reference: View = { name: 'reference', requests: [['/api/health/live']] }
  // The first requests compile the HTTP, auth and query paths: not a view's cost.
  for (const view of [reference, ...list]) for (let i = 0; i < 3; i++) await paint(view)
  const samples = new Map<View, number[]>([reference, ...list].map((v) => [v, []]))
  // Rounds alternate the views, so a burst of load on the machine falls on all of them alike.
  for (let round = 0; round < ROUNDS; round++) for (const view of [reference, ...list]) samples.get(view)!.push(await paint(view))
  const referenceMs = median(samples.get(reference)!)
  const figures = list.map((view): ViewFigure => {
    const ms = median(samples.get(view)!)
    return { view: view.name, ms, ratio: ms / referenceMs, requests: view.requests.map((g) => g.join(' + ')).join(' → ') }
  })
  for (const f of figures) log(`    ${f.view}: ${f.ms.toFixed(2)} ms (${f.ratio.toFixed(1)}× the reference)`)
  return { referenceMs, figures }
}

export async function runViewsBench(options: { rows?: number; dialect?: 'sqlite' | 'postgres'; log?: (line: string) => void } = {}): Promise<ViewsBenchResult> {
  const rows = options.rows ?? 1_000_000
  const dialect = options.dialect ?? 'sqlite'
  const log = options.log ?? console.log
  const before = loadavg()
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-views-'))
  const database = await benchDatabase(dialect)
  try {
    const { databaseUrl } = database
    // A day of calls ending a minute ago, rows about 86 ms apart: the health windows see them spread.
    const spacing = Math.max(1, Math.floor(86_400_000 / rows))
    const first = Date.now() - 60_000 - rows * spacing
    const started = performance.now()
    const opened = await openDatabase({ dataDir, databaseUrl })
    let conversationId: string
    try {
      const repo = new AuditRepository(opened.db, opened.sqlite)
      await writeAuditRows(repo, rows, first, {
        spacing,
        patch: (row, i) => {
          // Agent runs' calls are their conversation (the run's id, as the runner names it); failed rows say why in words.
          if (row.agent_id) row.conversation_id = `run:bench-${Math.floor(i / 250)}`
          if (row.error_message) row.error_message = errorOf(i)
        },
      })
      conversationId = `run:bench-${Math.floor(rows / 2 / 250 / 5) * 5}`
      // The health stats of the last rows are counted in memory until written (a second at most, or now).
      await repo.flushStats()
    } finally {
      await opened.close()
    }
    const buildMs = performance.now() - started
    log(`  ${dialect}: ${rows.toLocaleString('en-US')} rows written through the audit repository in ${(buildMs / 1000).toFixed(1)} s`)
    const plane = await createSkillplane({ dataDir, databaseUrl, logger: pino({ level: 'silent' }), config: fixtureConfig(), sync: true })
    const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const caller = { kind: 'user' as const, id: 'u-bench', name: 'bench', role: 'admin' as const }
      const key = (await plane.people.keys.create({ name: 'bench', role: 'admin' }, plane.now())).key
      const run = await plane.runs.start({ agent: 'bench', prompt: `call bench_leaf ${RUN_TOOL_CALLS} times`, requester: caller })
      if (run.status !== 'completed') throw new Error(`the fixture's run ended ${run.status}: ${run.error}`)
      const fan = await plane.invoke('bench_fan', { calls: TREE_CALLS - 1 }, { caller })
      if (!fan.ok) throw new Error(`the fixture's fan-out failed: ${JSON.stringify(fan.error)}`)
      // The audit's group commit writes a moment after the call answers.
      let leafCallId: string | undefined
      for (let tries = 0; !leafCallId && tries < 200; tries++) {
        leafCallId = (await plane.audit.query({ parentCallId: fan.callId, limit: 1 })).items[0]?.callId
        if (!leafCallId) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      if (!leafCallId) throw new Error('the fan-out left no child call in the audit')
      const measured = await measure(http.url, key, views({ runId: run.id, fanCallId: fan.callId, leafCallId, conversationId }), log)
      return { dialect, rows, buildMs, referenceMs: measured.referenceMs, views: measured.figures, load: { before, after: loadavg() } }
    } finally {
      await http.close()
      await plane.close()
    }
  } finally {
    database.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export function viewsTargetRows(r: ViewsBenchResult): TargetRow[] {
  const slowest = r.views.reduce((a, b) => (b.ms > a.ms ? b : a))
  return [
    {
      target: `every console view's first paint under ${TARGET_MS} ms (${r.rows.toLocaleString('en-US')} audit rows, ${r.dialect}, over HTTP)`,
      figure: `slowest ${slowest.ms.toFixed(2)} ms (${slowest.view}), ${slowest.ratio.toFixed(1)}× a bare route`,
      verdict: slowest.ms < TARGET_MS ? 'yes' : 'no',
    },
  ]
}

export function viewsReport(r: ViewsBenchResult): string {
  return `### Console views on ${r.rows.toLocaleString('en-US')} audit rows (${r.dialect})

A day of audit rows written through the audit repository's batch write in ${(r.buildMs / 1000).toFixed(1)} s (the shape of the
audit section's, with the agent runs' calls as conversations and failed rows' messages in words), then a manager opened on
them ran an agent run of ${RUN_TOOL_CALLS} tool calls (the AI SDK's mock model) and a call fanning out to ${TREE_CALLS - 1} others through
\`ctx.invoke\`. Each view's first paint is the wall time of the requests the console makes before it renders (requests
the page makes at once are made at once), over HTTP with an admin key, median of ${ROUNDS} rounds after three unmeasured
ones, the views in turn each round. The reference is a bare route (\`GET /api/health/live\`) in the same rounds:
${r.referenceMs.toFixed(2)} ms. Load average ${r.load.before.map((l) => l.toFixed(2)).join(', ')} before, ${r.load.after.map((l) => l.toFixed(2)).join(', ')} after.

| view | requests | first paint | × reference |
| --- | --- | --- | --- |
${r.views.map((v) => `| ${v.view} | \`${v.requests}\` | ${v.ms.toFixed(2)} ms | ${v.ratio.toFixed(1)} |`).join('\n')}`
}

export const viewsSection: BenchSection = {
  name: 'views',
  title: "First paint of the console's views on 1,000,000 audit rows",
  async run(log) {
    const results = [await runViewsBench({ log })]
    try {
      results.push(await runViewsBench({ dialect: 'postgres', log }))
    } catch (error) {
      log(`  postgres: not measured: ${(error as Error).message}`)
    }
    return { targets: results.flatMap(viewsTargetRows), body: results.map(viewsReport).join('\n\n') }
  },
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]
  const result = await runViewsBench({ rows: arg('rows') ? Number(arg('rows')) : undefined, dialect: arg('dialect') === 'postgres' ? 'postgres' : 'sqlite' })
  console.log(viewsTargetRows(result))
  console.log(viewsReport(result))
}
