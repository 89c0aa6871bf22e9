import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { SecretsKey } from '../../connections/index.js'
import { databases, type TestDatabase } from '../../test-support/databases.js'
import { McpSessionRepository, openDatabase, type OpenedDatabase } from '../../store/index.js'
import { SessionEventStore } from './session-event-store.js'
import { StreamEventWriter } from './stream-event-writer.js'

const GET = '_GET_stream'
const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } })
const PRIMING = {} as JSONRPCMessage

describe.each(databases)('stream events stored in groups ($name)', (database: TestDatabase) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  async function setUp() {
    opened = await openDatabase(await database.create())
    const key = SecretsKey.generate()
    const repo = new McpSessionRepository(opened.db, () => key, opened.sqlite)
    const writer = new StreamEventWriter(repo)
    const store = (sessionId: string) =>
      new SessionEventStore({
        repo,
        writer,
        sessionId,
        maxEvents: 1_000,
        maxBytes: 4 * 1024 * 1024,
        maxEventBytes: 256 * 1024,
        maxAgeMs: 600_000,
        clock: Date.now,
        logger: pino({ level: 'silent' }),
      })
    return { repo, writer, store }
  }

  /** What replays after `lastEventId`: the events' ids and messages' data. */
  async function replayed(store: SessionEventStore, lastEventId: string) {
    const sent: Array<[string, unknown]> = []
    await store.replayEventsAfter(lastEventId, {
      send: async (id, message) => void sent.push([id, (message as unknown as { params: { data: unknown } }).params.data]),
    })
    return sent
  }

  it("resolves a session's events in the order they were stored, committed together, and a stream started while some are on their way starts after them", async () => {
    const { repo, store } = await setUp()
    const [a, b] = [store('a'), store('b')]
    const first = await a.storeEvent(GET, note(0))
    await b.storeEvent(GET, note(0))
    let commits = 0
    const addEvents = repo.addEvents.bind(repo)
    repo.addEvents = (events) => (commits++, addEvents(events))
    // The same turn of the event loop: one commit. A GET stream reconnects while its notifications are on their way.
    const order: string[] = []
    const stored = [
      a.storeEvent(GET, note(1)),
      b.storeEvent(GET, note(1)),
      a.storeEvent(GET, PRIMING),
      b.storeEvent(GET, note(2)),
      a.storeEvent(GET, note(2)),
      b.storeEvent(GET, PRIMING),
    ].map((promise, i) => promise.then((id) => (order.push(String(i)), id)))
    const ids = await Promise.all(stored)
    expect(commits).toBe(1)
    expect(order).toEqual(['0', '1', '2', '3', '4', '5'])
    // Each stream start names its own session's last event before it: the one stored just before it, or (b) in this batch too.
    expect(ids[2]).toBe(`${ids[0]}.${GET}`)
    expect(ids[5]).toBe(`${ids[3]}.${GET}`)
    expect(await replayed(a, ids[2]!)).toEqual([[ids[4], 2]])
    expect(await replayed(b, ids[5]!)).toEqual([])
    expect(await replayed(a, first)).toEqual([
      [ids[0], 1],
      [ids[4], 2],
    ])
    // Nothing on its way: a stream starts after the last event, at once and without a commit.
    expect(await a.storeEvent('post-1', PRIMING)).toBe(`${ids[4]}.post-1`)
    expect(commits).toBe(1)
    // Another session's start ids find nothing here.
    await expect(a.getStreamIdForEventId(ids[5]!)).resolves.toBeUndefined()
  })

  it('stores the first stream start of a session that has stored nothing yet, and one event that cannot be stored fails alone', async () => {
    const { writer, store } = await setUp()
    const fresh = store('fresh')
    const priming = await fresh.storeEvent('post-1', PRIMING)
    expect(priming).toMatch(/^\d+$/)
    await expect(fresh.getStreamIdForEventId(priming)).resolves.toBe('post-1')
    const neighbours = [writer.write({ sessionId: 'fresh', streamId: 's', message: note(1), at: Date.now() })]
    const bad = writer.write({ sessionId: 'fresh', streamId: 's', message: { n: 1n }, at: Date.now() })
    neighbours.push(writer.write({ sessionId: 'fresh', streamId: 's', message: note(2), at: Date.now() }))
    await expect(bad).rejects.toThrow(/BigInt/)
    const [one, two] = await Promise.all(neighbours)
    expect(two!.id).toBeGreaterThan(one!.id!)
    expect(await replayed(fresh, String(one!.id))).toEqual([[String(two!.id), 2]])
  })
})
