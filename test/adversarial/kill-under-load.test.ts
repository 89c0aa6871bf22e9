import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../../src/test-support/databases.js'
import { CLI_MAIN, CLI_TEST_CONFIG } from '../../src/test-support/run-cli.js'

// Clients calling at once, and answered calls before the kill: enough for calls to be in every stage.
const CLIENTS = 16
const ANSWERED_BEFORE_KILL = 200
// Calls sleeping a minute, in the skill when the manager dies whatever the moment: each must be recovered as interrupted.
const LONG_CALLS = 4
// Long enough for every call in the skill to finish its sleep; short of SQLite's 5 s busy timeout.
const HOLD_MS = 300

const children = new Set<ChildProcess>()
afterEach(() => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
})

/** `skillplane serve` as a real process on this store; resolves with its URL (and the admin key on a first start). */
function serve(location: { dataDir: string; databaseUrl?: string }) {
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }
  delete env.SKILLPLANE_DATABASE_URL
  const database = location.databaseUrl ? ['--database-url', location.databaseUrl] : []
  const child = spawn(process.execPath, [CLI_MAIN, '--data-dir', location.dataDir, '--config', CLI_TEST_CONFIG, ...database, 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let out = ''
  const ready = new Promise<{ url: string; key: string | null }>((resolve, reject) => {
    const read = (chunk: string) => {
      out += chunk
      const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
      const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1] ?? null
      if (url && (key || /keys exist/.test(out))) resolve({ url, key })
    }
    child.stdout!.setEncoding('utf8').on('data', read)
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.on('exit', () => reject(new Error(`serve exited early: ${out}`)))
  })
  return { child, ready }
}

interface Row {
  callId: string
  status: string
  error: { code: string } | null
  durationMs: number | null
}

/** The audit rows (of one status), through `GET /api/audit` a page at a time. */
async function rows(url: string, key: string, status?: string): Promise<Row[]> {
  const all: Row[] = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ limit: '500', ...(status && { status }), ...(cursor && { cursor }) })
    const page = (await (await fetch(`${url}/api/audit?${query}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      items: Row[]
      nextCursor: string | null
    }
    all.push(...page.items)
    cursor = page.nextCursor
  } while (cursor)
  return all
}

/** Holds the audit table's writes until released: the manager's commits wait (SQLite: the write lock; PostgreSQL: a table lock). */
async function holdAuditWrites(location: { dataDir: string; databaseUrl?: string }): Promise<{ release(): Promise<void> }> {
  if (!location.databaseUrl) {
    const db = new SQLite(join(location.dataDir, 'skillplane.db'))
    db.exec('BEGIN IMMEDIATE')
    return {
      release: async () => {
        db.exec('ROLLBACK')
        db.close()
      },
    }
  }
  const client = new pg.Client({ connectionString: location.databaseUrl })
  await client.connect()
  await client.query('begin')
  await client.query('lock table audit_calls in exclusive mode')
  return {
    release: async () => {
      await client.query('rollback')
      // The dead manager's backends run the statements they were blocked on, then find their client gone.
      await waitFor(async () => {
        const others = await client.query('select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')
        return others.rows[0].n === 0
      })
      await client.end()
    },
  }
}

describe.each(databases)('kill -9 of a manager under load ($name)', (db) => {
  /**
   * A manager with LONG_CALLS minute-long calls running and CLIENTS clients calling a safe skill
   * that sleeps 5 ms again and again, killed with SIGKILL
   * once ANSWERED_BEFORE_KILL calls were answered (after `beforeKill`), then started again on the
   * same store: returns what the clients saw and the audit rows the restarted manager shows.
   */
  async function killUnderLoad(beforeKill: (location: { dataDir: string; databaseUrl?: string }) => Promise<() => Promise<void>>) {
    const location = await db.create()
    const first = serve(location)
    const { url, key } = await first.ready
    if (!key) throw new Error('the first start printed no admin key')
    const answered: string[] = []
    let cutOff = 0
    let killing: Promise<() => Promise<void>> | null = null
    let killed = false
    const invoke = (ms: number) =>
      fetch(`${url}/api/skills/slow/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { ms } }),
      })
    const long = Array.from({ length: LONG_CALLS }, () =>
      invoke(60_000).then(
        (response) => {
          throw new Error(`a minute-long call answered ${response.status} before the kill`)
        },
        () => void cutOff++,
      ),
    )
    await waitFor(async () => (await rows(url, key, 'running')).length === LONG_CALLS)
    const client = async () => {
      while (!killed) {
        try {
          const response = await invoke(5)
          const envelope = (await response.json()) as { ok: boolean; callId: string }
          if (response.status !== 200 || !envelope.ok)
            throw new Error(`an answer other than ok before the kill: ${response.status} ${JSON.stringify(envelope)}`)
          answered.push(envelope.callId)
        } catch (error) {
          if (!killed) throw error
          // The manager died with this call sent and unanswered.
          cutOff++
        }
        if (answered.length >= ANSWERED_BEFORE_KILL && !killing) {
          killing = beforeKill(location).then((after) => {
            killed = true
            first.child.kill('SIGKILL')
            return after
          })
        }
      }
    }
    const exited = once(first.child, 'exit')
    await Promise.all([...Array.from({ length: CLIENTS }, client), ...long])
    await exited
    await (
      await killing!
    )()

    // The restart recovers what its dead predecessor left running.
    const second = serve(location)
    const restarted = await second.ready
    const audit = await rows(restarted.url, key)
    second.child.kill('SIGTERM')
    await once(second.child, 'exit')
    const byId = new Map(audit.map((row) => [row.callId, row]))
    const byStatus: Record<string, number> = {}
    for (const row of audit) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1
    const answeredIds = new Set(answered)
    return {
      answered,
      cutOff,
      rows: audit,
      byStatus,
      answeredWithoutOk: answered.filter((id) => byId.get(id)?.status !== 'ok'),
      unanswered: audit.filter((row) => !answeredIds.has(row.callId)),
    }
  }

  /** What holds whatever the moment of the kill: no answered call without its ok row, no call lost or left running. */
  function expectNothingLost(run: Awaited<ReturnType<typeof killUnderLoad>>) {
    // The final row was committed before the answer left.
    expect(run.answeredWithoutOk).toEqual([])
    expect(new Set(run.answered).size).toBe(run.answered.length)
    // Every other row is a call the kill cut off: recovered as interrupted, or finished before it but never answered.
    expect(run.rows.filter((row) => row.status !== 'ok' && row.status !== 'interrupted')).toEqual([])
    expect(run.unanswered.length).toBeLessThanOrEqual(run.cutOff)
    for (const row of run.rows.filter((r) => r.status === 'interrupted'))
      expect({ code: row.error?.code, durationMs: row.durationMs }).toEqual({ code: 'unavailable', durationMs: null })
  }

  const summary = (what: string, run: Awaited<ReturnType<typeof killUnderLoad>>) =>
    `kill -9 ${what} (${db.name}): ${run.answered.length} calls answered 200, ${run.cutOff} cut off; after the restart ${run.rows.length} rows ` +
    `${JSON.stringify(run.byStatus)}; answered without an ok row: ${run.answeredWithoutOk.length}`

  it('leaves every answered call its ok row, and the calls it cut off interrupted after a restart', async () => {
    const run = await killUnderLoad(async () => async () => {})
    console.log(summary('under load', run))
    expectNothingLost(run)
  })

  it('answers no call whose final row is not committed yet: killed while the audit commits are held up', async () => {
    // Calls finishing while their rows can't be committed must not be answered: kill them in that state.
    const run = await killUnderLoad(async (location) => {
      const hold = await holdAuditWrites(location)
      await new Promise((r) => setTimeout(r, HOLD_MS))
      return () => hold.release()
    })
    console.log(summary('with commits held up', run))
    expectNothingLost(run)
  })
})
