import { parseTargetRows, type BenchSection } from './section.js'
import { alternate, cpuMicrosPerCall, median, ratios, type Spread, spread } from './support.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { createSkillplane, defineSkill, z } from '../src/index.js'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { Catalog } from '../src/registry/index.js'
import { CatalogChangeRepository, CatalogRepository, openDatabase } from '../src/store/index.js'
import { BareLoop, stallVerdict, watchLoop, type LoopFigures } from './loop-watch.js'

export interface ScaleBenchResult {
  skills: number
  agents: number
  startupMs: number
  /** Event-loop delay while idle, heartbeats running, after start-up: each round beside a bare loop in a worker thread. */
  loop: StallRounds
  /** The reference: the same process's event loop, idle as long as a round, before any plane is open (the machine's own noise). */
  bareLoop: LoopFigures
  /** The reference: one full reload of the catalog and policies, what every heartbeat did before. */
  fullReloadMs: number
  /**
   * One skill's catalog row edited by another writer on the same database: the refresh that reads
   * it (median), and the longest event-loop delay from the edit until a heartbeat has applied it.
   */
  change: { refreshMs: number; stallMs: number; rounds: number; stall: StallRounds }
  listing: ListingFigures
  openapi: OpenApiFigures
}

/** Idle rounds, and edits by another writer, each watched beside the bare loop. */
const IDLE_ROUNDS = 3

/** Rounds watched beside the bare loop; the figures at the top are the worst of the rounds. */
export interface StallRounds {
  maxMs: number
  /** The most CPU the main thread spent between two turns of its loop, in any round. */
  cpuMs?: number
  /** The bare loop's worst delay over the same rounds. */
  bareMaxMs: number
  seconds: number
  rounds: Array<{ main: LoopFigures; bare: LoopFigures }>
}

function worstOf(rounds: StallRounds['rounds']): StallRounds {
  const cpu = rounds.map((r) => r.main.cpuMs).filter((ms) => ms !== undefined)
  return {
    maxMs: Math.max(...rounds.map((r) => r.main.maxMs)),
    ...(cpu.length > 0 && { cpuMs: Math.max(...cpu) }),
    bareMaxMs: Math.max(...rounds.map((r) => r.bare.maxMs)),
    seconds: rounds.reduce((sum, r) => sum + r.main.seconds, 0),
    rounds,
  }
}

const lookupInput = (what: string) => z.object({ query: z.string().min(1).describe(what), limit: z.number().int().min(1).max(100).optional() })

/** The scale bench's skills; `inputOf` gives each its input schema (one shared by all, or one of its own each). */
function scaleSkills(skills: number, inputOf: (i: number) => z.ZodType<{ query: string }>) {
  return Array.from({ length: skills }, (_, i) =>
    defineSkill({
      key: `skill_${String(i).padStart(5, '0')}`,
      description: `Looks up thing number ${i} in the scale benchmark`,
      class: 'safe',
      category: `category_${i % 50}`,
      input: inputOf(i),
      run: ({ query }) => ({ query }),
    }),
  )
}

function skillsAndAgents(skills: number, agents: number) {
  const input = lookupInput('What to look up')
  const defined = scaleSkills(skills, () => input)
  // Each agent bound to 10 skills: 10,000 bindings in all.
  const declared = Array.from({ length: agents }, (_, i) => ({
    name: `agent_${i}`,
    description: `Scale benchmark agent ${i}`,
    skills: Array.from({ length: 10 }, (_, j) => defined[(i * 10 + j) % skills]!.key),
  }))
  return { defined, declared }
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the change did not arrive within 15 s')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Ten thousand skills and a thousand agents on one manager (SQLite): stalls, listing, OpenAPI. */
async function measurePlane(skills: number, agents: number, idleSeconds: number, bareLoop: BareLoop) {
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-scale-'))
  const { defined, declared } = skillsAndAgents(skills, agents)
  const started = performance.now()
  const plane = await createSkillplane({ config: { skills: defined, agents: declared }, dataDir, logger: pino({ level: 'silent' }), sync: true })
  const startupMs = performance.now() - started
  const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  try {
    const key = (await plane.people.keys.create({ name: 'bench', role: 'admin' }, plane.now())).key
    const get = async (path: string) => {
      const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } })
      const text = await response.text()
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 200)}`)
      return text
    }

    // Idle with heartbeats running (every 5 s, so at least one a round): the longest the event loop was held up.
    const idleRounds: StallRounds['rounds'] = []
    for (let i = 0; i < IDLE_ROUNDS; i++) {
      const { value: main, bare } = await bareLoop.during(() => watchLoop(() => new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000))))
      idleRounds.push({ main, bare })
    }

    // Another writer on the same database: what a second manager's catalog edit writes.
    const other = await openDatabase({ dataDir })
    const reloads: number[] = []
    const refreshes: number[] = []
    const editRounds: StallRounds['rounds'] = []
    try {
      const otherCatalog = new CatalogRepository(other.db)
      const edit = (title: string) => otherCatalog.update('skill_00001', { title_override: title, updated_at: plane.now() })
      for (let i = 0; i < 5; i++) {
        await edit(`Edited elsewhere ${i}`)
        const start = performance.now()
        await plane.skills.refresh()
        refreshes.push(performance.now() - start)
      }
      for (let i = 0; i < IDLE_ROUNDS; i++) {
        const title = `Edited elsewhere, seen by a heartbeat ${i}`
        const { value: main, bare } = await bareLoop.during(() =>
          watchLoop(async () => {
            await edit(title)
            await until(() => plane.skills.row('skill_00001')?.title_override === title)
          }),
        )
        editRounds.push({ main, bare })
      }
      // After the rounds: the garbage of five full reloads must not be collected during one of them.
      for (let i = 0; i < 5; i++) {
        // A fresh catalog's first refresh reads every row: what every change cost before.
        const fresh = new Catalog(new CatalogRepository(other.db), new CatalogChangeRepository(other.db))
        const start = performance.now()
        await fresh.refresh()
        await plane.policies.refresh()
        reloads.push(performance.now() - start)
      }
    } finally {
      await other.close()
    }

    const listing = await measureListing(plane, get)
    const openapi = await measureOpenApi(plane, get)
    return {
      startupMs,
      loop: worstOf(idleRounds),
      fullReloadMs: median(reloads),
      change: {
        refreshMs: median(refreshes),
        stallMs: Math.max(...editRounds.map((r) => r.main.maxMs)),
        rounds: editRounds.length,
        stall: worstOf(editRounds),
      },
      listing,
      openapi,
    }
  } finally {
    await server.close()
    await plane.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

type Get = (path: string) => Promise<string>
type EditablePlane = Awaited<ReturnType<typeof createSkillplane>>

export interface ListingFigures {
  skills: number
  pageSize: number
  /** Wall ms per request over alternating rounds: a default page, a page after a catalog edit, the reference. */
  page: Spread
  afterEdit: Spread
  /** `GET /api/me` on the same server with the same key: the floor of an authenticated JSON answer. */
  floor: Spread
  pageBytes: number
  /** A filter that matches no skill, so the page reads all of them: the worst page. */
  unmatched: Spread
  /** CPU (client and server, one process) per request. */
  cpu: { page: number; floor: number; unmatched: number }
  /** Every page of the listing in turn at 500 a page, as the CLI and the console read it all. */
  whole: { pages: number; ms: number }
}

export interface OpenApiFigures {
  /** Wall ms for the whole document right after one skill's catalog edit, and from memory (the reference). */
  afterEdit: Spread
  fromMemory: Spread
  cpuAfterEditMs: number
  bytes: number
  paths: number
  schemas: number
  /** The same skills each with an input schema of its own (no two alike): what deduplication can't save. */
  distinct: { bytes: number; afterEdit: Spread; schemaBytes: number }
}

const ROUNDS = 5

/** `GET /api/skills` paged: a page, the first page after an edit, the worst filter, against `GET /api/me`. */
async function measureListing(plane: EditablePlane, get: Get): Promise<ListingFigures> {
  const timedGet = async (path: string) => {
    const start = performance.now()
    await get(path)
    return performance.now() - start
  }
  const first = JSON.parse(await get('/api/skills')) as { skills: unknown[]; nextCursor: string | null }
  let edits = 0
  const sides = await alternate(ROUNDS, {
    page: () => timedGet('/api/skills'),
    afterEdit: async () => {
      await plane.skills.edit('skill_00002', { title: `Listed ${edits++}` }, plane.now())
      return timedGet('/api/skills')
    },
    unmatched: () => timedGet('/api/skills?connection=needs_auth'),
    floor: () => timedGet('/api/me'),
  })
  const cpu = async (path: string) =>
    (
      await cpuMicrosPerCall(async () => {
        for (let i = 0; i < 20; i++) await get(path)
        return 20
      })
    ).cpuMicrosPerCall / 1000
  const wholeStart = performance.now()
  let pages = 0
  let cursor: string | null = null
  do {
    const page = JSON.parse(await get(`/api/skills?limit=500${cursor ? `&cursor=${cursor}` : ''}`)) as { nextCursor: string | null }
    cursor = page.nextCursor
    pages++
  } while (cursor !== null)
  return {
    skills: plane.skills.list().length,
    pageSize: first.skills.length,
    ...sides,
    pageBytes: Buffer.byteLength(JSON.stringify(first)),
    cpu: { page: await cpu('/api/skills'), floor: await cpu('/api/me'), unmatched: await cpu('/api/skills?connection=needs_auth') },
    whole: { pages, ms: performance.now() - wholeStart },
  }
}

/** `/openapi.json` whole: built after one skill's edit, and from memory; then the same with distinct schemas. */
async function measureOpenApi(plane: EditablePlane, get: Get): Promise<OpenApiFigures> {
  const own = await buildAfterEdit(plane, get)
  const distinct = await withDistinctSchemas(plane.skills.list().length)
  return { ...own, distinct }
}

async function buildAfterEdit(plane: EditablePlane, get: Get) {
  // The first document builds every skill's part; what the target is about is the build after one edit.
  await get('/openapi.json')
  let edits = 0
  const cpuMs: number[] = []
  const sides = await alternate(ROUNDS, {
    afterEdit: async () => {
      await plane.skills.edit('skill_00000', { title: `Retitled ${edits++}` }, plane.now())
      const cpu = process.cpuUsage()
      const start = performance.now()
      await get('/openapi.json')
      const ms = performance.now() - start
      const used = process.cpuUsage(cpu)
      cpuMs.push((used.user + used.system) / 1000)
      return ms
    },
    fromMemory: async () => {
      const start = performance.now()
      await get('/openapi.json')
      return performance.now() - start
    },
  })
  const text = await get('/openapi.json')
  const document = JSON.parse(text) as { paths: object; components: { schemas: object } }
  return {
    ...sides,
    cpuAfterEditMs: spread(cpuMs).median,
    bytes: Buffer.byteLength(text),
    paths: Object.keys(document.paths).length,
    schemas: Object.keys(document.components.schemas).length,
  }
}

/** A plane whose skills each have an input schema of their own: the document's size when nothing is shared. */
async function withDistinctSchemas(skills: number): Promise<OpenApiFigures['distinct']> {
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-openapi-'))
  const defined = scaleSkills(skills, (i) => lookupInput(`What to look up in store ${i}`))
  const plane = await createSkillplane({ config: { skills: defined }, dataDir, logger: pino({ level: 'silent' }), sync: true })
  const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  try {
    const key = (await plane.people.keys.create({ name: 'bench', role: 'admin' }, plane.now())).key
    const get = async (path: string) => (await fetch(server.url + path, { headers: { authorization: `Bearer ${key}` } })).text()
    const figures = await buildAfterEdit(plane, get)
    const schemaBytes = defined.reduce((sum, skill) => sum + Buffer.byteLength(JSON.stringify(z.toJSONSchema(skill.input as z.ZodType))), 0)
    return { bytes: figures.bytes, afterEdit: figures.afterEdit, schemaBytes }
  } finally {
    await server.close()
    await plane.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function runScaleBench(options: { skills?: number; agents?: number; idleSeconds?: number } = {}): Promise<ScaleBenchResult> {
  const skills = options.skills ?? 10_000
  const agents = options.agents ?? 1_000
  const idleSeconds = options.idleSeconds ?? 6
  const bareLoop = await watchLoop(() => new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000)))
  const beside = new BareLoop()
  const plane = await measurePlane(skills, agents, idleSeconds, beside).finally(() => beside.close())
  return { skills, agents, bareLoop, ...plane }
}

export function printScale(r: ScaleBenchResult, log: (line: string) => void = console.log): void {
  const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`
  log(`  ${r.skills} skills, ${r.agents} agents: start-up ${ms(r.startupMs)}`)
  log(`  event loop idle with heartbeats, ${stallFigure(r.loop)} (target ≤ 10 ms; a full reload, as every heartbeat did before: ${ms(r.fullReloadMs)})`)
  log(`  one skill edited by another writer, until a heartbeat applied it: refresh ${ms(r.change.refreshMs)}; ${stallFigure(r.change.stall)} (target ≤ 10 ms)`)
  log(
    `  bare event loop, same process, ${r.bareLoop.seconds.toFixed(0)} s before any plane: max ${ms(r.bareLoop.maxMs)}, p99 ${ms(r.bareLoop.p99Ms)} (the machine's noise)`,
  )
  const l = r.listing
  log(
    `  GET /api/skills (${l.skills} skills, ${l.pageSize} a page, ${(l.pageBytes / 1024).toFixed(0)} KB): ${ms(l.page.median)} (min ${ms(l.page.min)}), after a catalog edit ${ms(l.afterEdit.median)}, ` +
      `a filter matching none ${ms(l.unmatched.median)}; GET /api/me ${ms(l.floor.median)}; CPU ${ms(l.cpu.page)} vs ${ms(l.cpu.floor)}; all ${l.whole.pages} pages of 500 ${ms(l.whole.ms)} (target < 50 ms)`,
  )
  const o = r.openapi
  log(
    `  /openapi.json whole, after an edit: ${ms(o.afterEdit.median)} (min ${ms(o.afterEdit.min)}, CPU ${ms(o.cpuAfterEditMs)}), from memory ${ms(o.fromMemory.median)}; ${mb(o.bytes)} ` +
      `(${o.paths} paths, ${o.schemas} schemas); every skill its own schema: ${ms(o.distinct.afterEdit.median)}, ${mb(o.distinct.bytes)} of which the schemas alone ${mb(o.distinct.schemaBytes)} (targets < 100 ms, < 5 MB)`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const found = process.argv.find((a) => a.startsWith(`--${name}=`))
    return found ? Number(found.split('=')[1]) : undefined
  }
  printScale(await runScaleBench({ skills: arg('skills'), agents: arg('agents'), idleSeconds: arg('idle') }))
}

/** A stall target's figure: the worst round, each round beside the bare loop, and the main thread's CPU. */
function stallFigure(r: StallRounds): string {
  const each = (pick: (round: StallRounds['rounds'][number]) => LoopFigures) => r.rounds.map((round) => pick(round).maxMs.toFixed(1)).join(', ')
  const cpu =
    r.cpuMs === undefined
      ? ''
      : `; the most CPU the main thread spent between two turns of its loop: ${r.cpuMs.toFixed(1)} ms (${r.rounds.map((round) => `${round.main.cpuMs!.toFixed(1)} at ${round.main.cpuAt?.toFixed(1) ?? '–'} s`).join(', ')})`
  return `max ${r.maxMs.toFixed(1)} ms over ${r.rounds.length} rounds (${each((round) => round.main)} ms; a bare loop in a worker thread over the same rounds: ${each((round) => round.bare)} ms)${cpu}`
}

const TARGET = { stallMs: 10, listingMs: 50, openapiMs: 100, documentBytes: 5 * 2 ** 20 }

/** Rows of results.md's target table. */
export function scaleTargetRows(r: ScaleBenchResult): string[] {
  return [
    `| no event-loop stall over ${TARGET.stallMs} ms idle with ${r.skills.toLocaleString('en-US')} skills | ${stallFigure(r.loop)} | ${stallVerdict(r.loop.rounds, TARGET.stallMs)} |`,
    `| no event-loop stall over ${TARGET.stallMs} ms when another manager edits one skill | ${stallFigure(r.change.stall)} | ${stallVerdict(r.change.stall.rounds, TARGET.stallMs)} |`,
    ...catalogTargetRows(r),
  ]
}

function heldUp(rounds: LoopFigures[]): string {
  return rounds.map((round, i) => `round ${i + 1} ${round.stalls.length === 0 ? 'never' : round.stalls.join(', ')}`).join('; ')
}

/** The section of results.md. */
export function scaleReport(r: ScaleBenchResult): string {
  const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`
  return `## ${r.skills.toLocaleString('en-US')} skills and ${r.agents.toLocaleString('en-US')} agents

One manager on SQLite with ${r.skills.toLocaleString('en-US')} code skills (zod input) and ${r.agents.toLocaleString('en-US')} agents bound to 10 skills each;
start-up with the sync took ${ms(r.startupMs)}. The HTTP client runs in the same process.

| measure | figure | reference (same run) |
| --- | --- | --- |
| event loop, idle with heartbeats (\`monitorEventLoopDelay\` and a 5 ms probe), ${r.loop.rounds.length} rounds of ${r.loop.rounds[0]!.main.seconds.toFixed(0)} s | ${stallFigure(r.loop)} | the same process's loop, idle ${r.bareLoop.seconds.toFixed(0)} s before any plane: max ${ms(r.bareLoop.maxMs)}, p99 ${ms(r.bareLoop.p99Ms)}; a full reload of the catalog and policies, what every heartbeat did before: ${ms(r.fullReloadMs)} |
| one skill edited by another writer on the same database, until a heartbeat applied it | refresh ${ms(r.change.refreshMs)} (median of 5); ${stallFigure(r.change.stall)} | a full reload: ${ms(r.fullReloadMs)} |
${catalogReportRows(r)}

Held up over 10 ms while idle (seconds into each round; heartbeats every 5 s): ${heldUp(r.loop.rounds.map((round) => round.main))}; the bare loop in
the worker beside it: ${heldUp(r.loop.rounds.map((round) => round.bare))}. A round held up while the bare loop was held up too
says nothing about the code: its verdict is "not measurable here". The main thread's CPU between two turns (from the
scheduler's count for that thread) is what the longest stall would be on an unloaded machine.`
}

export const scaleSection: BenchSection = {
  name: 'scale',
  title: '10,000 skills and 1,000 agents',
  async run(log) {
    const r = await runScaleBench()
    printScale(r, log)
    return { targets: parseTargetRows(scaleTargetRows(r), /5 MB whole/), body: scaleReport(r) }
  },
}

const fmt = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`
const mib = (n: number) => `${(n / 2 ** 20).toFixed(2)} MB`
const range = (s: Spread) => `${fmt(s.min)}–${fmt(s.median)} (min–median of ${s.rounds.length})`

/** The listing's and the OpenAPI document's target rows. */
function catalogTargetRows(r: ScaleBenchResult): string[] {
  const yesNo = (met: boolean) => (met ? '**yes**' : '**no**')
  const { listing: l, openapi: o } = r
  const slowest = Math.max(l.page.median, l.afterEdit.median)
  return [
    `| \`GET /api/skills\` under ${TARGET.listingMs} ms, paged (${l.skills.toLocaleString('en-US')} skills, ${r.agents.toLocaleString('en-US')} agents) | a page of ${l.pageSize}: ${range(l.page)}; after a catalog edit ${range(l.afterEdit)}; \`GET /api/me\` ${range(l.floor)} | ${yesNo(slowest < TARGET.listingMs)} |`,
    `| \`/openapi.json\` under ${TARGET.openapiMs} ms after an edit | whole document ${range(o.afterEdit)}, CPU ${fmt(o.cpuAfterEditMs)} (median; client and server); from memory ${range(o.fromMemory)} | ${yesNo(o.afterEdit.median < TARGET.openapiMs)} |`,
    `| \`/openapi.json\` under 5 MB whole (${l.skills.toLocaleString('en-US')} skills) | ${mib(o.bytes)} (skills sharing an input schema); every skill its own: ${mib(o.distinct.bytes)}, the schemas alone ${mib(o.distinct.schemaBytes)} | ${yesNo(o.bytes < TARGET.documentBytes)} |`,
  ]
}

/** The listing's and the OpenAPI document's rows of the section's table. */
function catalogReportRows(r: ScaleBenchResult): string {
  const { listing: l, openapi: o } = r
  const ratio = (s: Spread) => `${s.min.toFixed(1)}–${s.median.toFixed(1)}×`
  return [
    `| \`GET /api/skills\`, a page of ${l.pageSize} (${(l.pageBytes / 1024).toFixed(0)} KB) of ${l.skills.toLocaleString('en-US')} | ${range(l.page)}; CPU ${fmt(l.cpu.page)} a request | \`GET /api/me\`, same key and server: ${range(l.floor)}, CPU ${fmt(l.cpu.floor)}; page ÷ it ${ratio(ratios(l.page, l.floor))} |`,
    `| \`GET /api/skills\`, the first page after a catalog edit | ${range(l.afterEdit)} | ÷ \`GET /api/me\` ${ratio(ratios(l.afterEdit, l.floor))} |`,
    `| \`GET /api/skills?connection=needs_auth\` (matches none: the page reads every skill) | ${range(l.unmatched)}; CPU ${fmt(l.cpu.unmatched)} | |`,
    `| the whole listing, ${l.whole.pages} pages of 500 one after another (what the CLI and console read) | ${fmt(l.whole.ms)} | |`,
    `| \`/openapi.json\` whole, right after one skill's catalog edit | ${range(o.afterEdit)}; CPU ${fmt(o.cpuAfterEditMs)} (median; client and server); ${mib(o.bytes)}, ${o.paths.toLocaleString('en-US')} paths, ${o.schemas.toLocaleString('en-US')} component schemas | from memory: ${range(o.fromMemory)}; after an edit ÷ from memory ${ratio(ratios(o.afterEdit, o.fromMemory))} |`,
    `| the same, every skill with an input schema of its own | ${range(o.distinct.afterEdit)}; ${mib(o.distinct.bytes)} | the ${l.skills.toLocaleString('en-US')} schemas alone, compact: ${mib(o.distinct.schemaBytes)} |`,
  ].join('\n')
}
