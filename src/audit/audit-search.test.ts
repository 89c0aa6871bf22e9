import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { databases } from '../test-support/databases.js'
import { admin, operator, silentLogger, testAgents, testSkills } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { z } from 'zod'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { AuditEntry } from './audit-entry.js'
import { matchesWords, searchWords } from './audit-search.js'

const failWith = defineSkill({
  key: 'fail_with',
  description: 'Throws the message it is given',
  class: 'safe',
  input: z.object({ message: z.string() }),
  run: ({ message }) => {
    throw new Error(message)
  },
})

const MESSAGES = [
  'connection refused by db-7.internal:5432',
  'Timeout after 30s waiting for café',
  'disk quota exceeded on /var/data',
  'upstream said: Connection reset',
  'refused: quota',
]

const QUERIES = [
  'conn',
  'refused db',
  'DB-7 internal',
  '5432',
  'café',
  'cafe',
  'quota',
  'quo exc',
  'zzz',
  'fail_with',
  'echo',
  'alice',
  'u-op',
  'helper',
  'Other',
  'connection echo',
]

// What every query found on each database, as (skill, caller, error) rows in order: the dialects must agree.
const found = new Map<string, Map<string, string[]>>()
const shown = (e: AuditEntry) => `${e.skill}|${e.caller.name}|${e.agent}|${e.error?.message ?? ''}`

// The rule, applied to every row in memory.
const agentLabels = new Map(testAgents!.map((a) => [a.name.toLowerCase(), [a.name, ...(a.aliases ?? [])]]))
function oracle(rows: AuditEntry[], q: string): AuditEntry[] {
  const words = searchWords(q)
  return rows.filter((e) =>
    [e.skill, e.caller.id, e.caller.name, e.agent ?? '', ...(e.agent ? (agentLabels.get(e.agent) ?? []) : []), e.error?.message ?? ''].some(
      (field) => field !== '' && matchesWords(field, words),
    ),
  )
}

async function all(plane: Skillplane, filter: Record<string, string> = {}): Promise<AuditEntry[]> {
  const rows: AuditEntry[] = []
  for await (const page of plane.audit.matching(filter, 1_000_000)) rows.push(...page)
  return rows
}

describe.each(databases)('audit search on $name', (database) => {
  let plane: Skillplane
  let location: { dataDir: string; databaseUrl?: string }
  const hits = new Map<string, string[]>()
  found.set(database.name, hits)

  afterAll(() => plane?.close())

  it('finds every call whose skill, caller, agent or error message has all the words, newest first, combined with the other filters', async () => {
    location = await database.create()
    plane = await createSkillplane({ config: { skills: [...testSkills(), failWith], agents: testAgents }, ...location, logger: silentLogger(), sync: true })
    // Values the search learns before the calls, then those it sees written.
    await plane.audit.query({ q: 'warm', limit: 1 })
    for (const [i, message] of MESSAGES.entries()) {
      await plane.invoke('fail_with', { message }, { caller: i % 2 ? operator : admin })
      await plane.invoke('echo', { message: `m${i}` }, { caller: admin, agent: i % 2 ? 'helper' : undefined })
    }
    await plane.invoke('explode', {}, { caller: operator, agent: 'other' })
    await plane.invoke('explode', {}, { caller: operator })
    const rows = await all(plane)
    expect(rows).toHaveLength(2 * MESSAGES.length + 2)

    for (const q of QUERIES) {
      const page = await plane.audit.query({ q, limit: 500 })
      expect(page.items.map(shown), q).toEqual(oracle(rows, q).map(shown))
      hits.set(q, page.items.map(shown))
    }
    // The rule's edges, spelled out.
    expect(hits.get('conn')).toHaveLength(2)
    expect(hits.get('DB-7 internal')).toEqual(['fail_with|alice|null|skill "fail_with" failed: connection refused by db-7.internal:5432'])
    expect(hits.get('cafe')).toEqual([])
    expect(hits.get('zzz')).toEqual([])
    expect(hits.get('helper')!.every((h) => h.startsWith('echo|alice|helper|'))).toBe(true)
    expect(hits.get('Other')).toEqual(['explode|oscar|other|skill "explode" is not bound to agent "other"'])
    expect(hits.get('connection echo')).toEqual([])

    // With a status, a skill and a caller; and paged through the cursor, two at a time.
    for (const [q, filter] of [
      ['refused', { status: 'error' }],
      ['refused', { status: 'ok' }],
      ['quota', { skill: 'fail_with', caller: 'alice' }],
      ['echo', { caller: 'alice', status: 'ok' }],
      ['conn', { skill: 'echo' }],
    ] as const) {
      const expected = oracle(rows, q).filter(
        (e) =>
          (!('status' in filter) || e.status === filter.status) &&
          (!('skill' in filter) || e.skill === filter.skill) &&
          (!('caller' in filter) || e.caller.name === filter.caller),
      )
      const paged: AuditEntry[] = []
      let cursor: string | undefined
      do {
        const page = await plane.audit.query({ q, ...filter, limit: 2, ...(cursor && { cursor }) })
        paged.push(...page.items)
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      expect(paged.map(shown), `${q} ${JSON.stringify(filter)}`).toEqual(expected.map(shown))
      hits.set(`${q} ${JSON.stringify(filter)}`, paged.map(shown))
    }
    expect(hits.get('refused {"status":"ok"}')).toEqual([])
  })

  it('keeps the words of a message in step when its call is deleted (retention)', async () => {
    expect((await plane.audit.query({ q: 'fire', limit: 10 })).items).toHaveLength(1)
    await plane.close()
    plane = await createSkillplane({
      config: { skills: [...testSkills(), failWith], agents: testAgents, audit: { maxRows: 2 } },
      ...location,
      logger: silentLogger(),
    })
    expect((await plane.audit.sweep()).deleted).toBe(2 * MESSAGES.length)
    expect((await plane.audit.query({ q: 'refused', limit: 10 })).items).toEqual([])
    if (database.name === 'sqlite') {
      // The words index itself holds only the kept error ("the disk is on fire"), not the deleted ones.
      const db = new SQLite(join(location.dataDir, 'skillplane.db'), { readonly: true })
      try {
        expect(db.prepare(`select rowid from audit_search where audit_search match 'refused'`).all()).toEqual([])
        expect(db.prepare(`select count(*) as n from audit_search where audit_search match 'fire'`).get()).toEqual({ n: 1 })
      } finally {
        db.close()
      }
    }
  })
})

describe.each(databases)('audit search matching many values on $name', (database) => {
  it('walks the calls newest first when a word matches more skills, callers and agents than it walks one by one', async () => {
    const plane = await createSkillplane({ config: { skills: testSkills(), agents: testAgents }, ...(await database.create()), logger: silentLogger() })
    try {
      for (let i = 0; i < 20; i++) {
        await plane.invoke('echo', { message: `m${i}` }, { caller: { kind: 'user', id: `bulk-${i}`, name: `Bulk user ${i}`, role: 'admin' } })
        await plane.invoke('echo', { message: `n${i}` }, { caller: admin })
      }
      await plane.invoke('explode', {}, { caller: { kind: 'user', id: 'bulk-0', name: 'Bulk user 0', role: 'admin' } })
      const rows = await all(plane)
      const paged: AuditEntry[] = []
      let cursor: string | undefined
      do {
        const page = await plane.audit.query({ q: 'bulk', limit: 3, ...(cursor && { cursor }) })
        paged.push(...page.items)
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      expect(paged.map((e) => e.callId)).toEqual(oracle(rows, 'bulk').map((e) => e.callId))
      expect(paged).toHaveLength(21)
      expect((await plane.audit.query({ q: 'bulk', status: 'error', limit: 50 })).items.map((e) => e.skill)).toEqual(['explode'])
    } finally {
      await plane.close()
    }
  })
})

describe('audit search parity', () => {
  it.runIf(databases.length === 2)('finds the same calls on SQLite and PostgreSQL', () => {
    expect(found.get('postgres')).toEqual(found.get('sqlite'))
  })
})
