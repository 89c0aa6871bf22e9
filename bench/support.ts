import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pino from 'pino'
import { z } from 'zod'
import { createSkillplane, defineSkill, type Caller, type Skillplane } from '../src/index.js'

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
