import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pino from 'pino'
import { z } from 'zod'
import { createSkillplane, defineSkill, type Caller, type Skillplane } from '../src/index.js'
import { createTestDatabase, startTempPostgres, type TempPostgres } from '../src/test-support/postgres.js'

export const NOOP_KEY = 'bench_noop'

export const BENCH_CALLER: Caller = { kind: 'user', id: 'bench', name: 'bench', role: 'admin' }

export interface NoopInput {
  n: number
}

/** The work both sides do: the skill's run function, also called bare as the reference. */
export async function noopWork(input: NoopInput): Promise<{ n: number }> {
  return { n: input.n }
}

const noop = defineSkill({
  key: NOOP_KEY,
  description: 'Returns its input; a benchmark of the pipeline itself.',
  class: 'safe',
  input: z.object({ n: z.number() }),
  run: (input) => noopWork(input),
})

export interface BenchPlane {
  plane: Skillplane
  /** Counts audit rows by status, read straight from the SQLite file. */
  auditCounts(): Record<string, number>
  close(): Promise<void>
}

/** A skillplane with the no-op skill, audit on SQLite in a fresh temp directory. */
export async function openBenchPlane(): Promise<BenchPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-'))
  const plane = await createSkillplane({
    config: { skills: [noop] },
    dataDir,
    logger: pino({ level: 'silent' }),
    sync: true,
  })
  return {
    plane,
    auditCounts() {
      const db = new SQLite(plane.status.location, { readonly: true })
      try {
        const rows = db.prepare('SELECT status, count(*) AS n FROM audit_calls GROUP BY status').all() as Array<{
          status: string
          n: number
        }>
        return Object.fromEntries(rows.map((r) => [r.status, r.n]))
      } finally {
        db.close()
      }
    },
    async close() {
      await plane.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function sumCounts(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0)
}

export function round(value: number, digits = 0): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

/** The least, middle and greatest of a set of round figures. */
export interface Spread {
  min: number
  median: number
  max: number
  rounds: number[]
}

export function spread(values: number[]): Spread {
  if (values.length === 0) throw new Error('spread of no values')
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]!, rounds: values }
}

/**
 * Runs each side once per round, the sides in turn, for `rounds` rounds (at least three), so a neighbour's
 * load falls on every side alike: each side's figures, round by round.
 */
export async function alternateRounds<K extends string, T>(rounds: number, sides: Record<K, () => Promise<T>>): Promise<Record<K, T[]>> {
  if (rounds < 3) throw new Error(`alternating rounds: at least 3, not ${rounds}`)
  const names = Object.keys(sides) as K[]
  const figures = Object.fromEntries(names.map((n) => [n, [] as T[]])) as unknown as Record<K, T[]>
  for (let i = 0; i < rounds; i++) for (const name of names) figures[name].push(await sides[name]())
  return figures
}

/** Alternating rounds of sides that each return one figure a round (calls/s, ms per call…): their spreads. */
export async function alternate<K extends string>(rounds: number, sides: Record<K, () => Promise<number>>): Promise<Record<K, Spread>> {
  const figures = await alternateRounds(rounds, sides)
  return Object.fromEntries(Object.entries<number[]>(figures).map(([n, values]) => [n, spread(values)])) as Record<K, Spread>
}

export const median = (values: number[]): number => spread(values).median

/** A count or rate as the reports print it: rounded, with thousands separators. */
export const int = (n: number): string => Math.round(n).toLocaleString('en-US')

/** A ratio as the reports print it. */
export const times = (ratio: number): string => `${ratio < 0.01 ? ratio.toPrecision(2) : ratio.toFixed(2)}×`

/** Each round's ratio of one side's figure to another's, taken apart: the min and median of the per-round ratios. */
export function ratios(over: Spread, under: Spread): Spread {
  return spread(over.rounds.map((v, i) => v / under.rounds[i]!))
}

/** This process's CPU time (user + system, µs) spent while `work` ran, per call it reports having made. */
export async function cpuMicrosPerCall(work: () => Promise<number>): Promise<{ calls: number; cpuMicrosPerCall: number }> {
  const before = process.cpuUsage()
  const calls = await work()
  const used = process.cpuUsage(before)
  return { calls, cpuMicrosPerCall: (used.user + used.system) / Math.max(1, calls) }
}

/**
 * Polls `check` until it holds, failing after `timeoutMs` with what it waited for; deadlines are
 * generous because a loaded machine is slow, and the time it took is returned to be reported.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 180_000): Promise<number> {
  const start = performance.now()
  for (;;) {
    if (await check()) return performance.now() - start
    if (performance.now() - start > timeoutMs) throw new Error(`waited ${(timeoutMs / 1000).toFixed(0)} s for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** A fresh database for a bench: SQLite (no URL) or a new PostgreSQL database on CI's server, else on a throw-away cluster. */
export async function benchDatabase(dialect: 'sqlite' | 'postgres'): Promise<{ databaseUrl?: string; stop(): void }> {
  if (dialect === 'sqlite') return { stop: () => {} }
  let admin = process.env.SKILLPLANE_TEST_DATABASE_URL
  let server: TempPostgres | null = null
  if (!admin) {
    server = await startTempPostgres()
    if (!server) throw new Error('no PostgreSQL: set SKILLPLANE_TEST_DATABASE_URL or install initdb/pg_ctl')
    admin = server.url
  }
  return { databaseUrl: await createTestDatabase(admin), stop: () => server?.stop() }
}
