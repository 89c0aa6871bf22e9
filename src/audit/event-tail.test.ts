import { afterEach, describe, expect, it } from 'vitest'
import { encodeTime } from 'ulid'
import { databases, waitFor } from '../test-support/databases.js'
import { EventRepository, openDatabase, type EventRow, type OpenedDatabase } from '../store/index.js'
import { EventTail } from './event-tail.js'
import type { AuditEvent } from './audit-event.js'

const row = (id: string): EventRow => ({
  id,
  kind: 'approval.created',
  subject: `approval:${id}`,
  actor_id: 'k1',
  actor_name: 'alice',
  call_id: null,
  details: '{}',
  created_at: new Date().toISOString(),
})
const idAt = (ms: number, n: number) => `${encodeTime(ms, 10)}${String(n).padStart(16, '0')}`

describe.each(databases)('the event tail on $name', (database) => {
  let opened: OpenedDatabase | undefined
  afterEach(() => opened?.close())

  it('delivers each new event once, an event committed late with an earlier id too, and none from before it listened', async () => {
    opened = await openDatabase(await database.create())
    const repo = new EventRepository(opened.db)
    const now = Date.now()
    await repo.insert(row(idAt(now - 1000, 1)))
    const tail = new EventTail(repo, 50)
    const got: AuditEvent[] = []
    const stop = tail.subscribe((event) => got.push(event))
    await tail.ready()
    await repo.insert(row(idAt(now, 2)))
    tail.poke()
    await waitFor(() => got.length === 1)
    // Another manager's transaction took its id before the last one seen, and commits only now.
    await repo.insert(row(idAt(now - 3000, 3)))
    await waitFor(() => got.length === 2)
    await new Promise((r) => setTimeout(r, 200))
    expect(got.map((e) => e.id)).toEqual([idAt(now, 2), idAt(now - 3000, 3)])
    expect((await tail.after(idAt(now - 1000, 1), 10)).map((e) => e.id)).toEqual([idAt(now, 2)])
    stop()
  })
})
