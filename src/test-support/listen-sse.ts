import { EventSourceParserStream } from 'eventsource-parser/stream'
import { expect } from 'vitest'

export interface SseEvent<T> {
  id: string
  event: string
  data: T
}

/**
 * An event stream of the HTTP API read as a client would: what it has received so far (JSON data,
 * parsed), `ended` once the server closes it, `close()` to hang up.
 */
export async function listenSse<T>(url: string, key: string, lastEventId?: string) {
  const controller = new AbortController()
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, ...(lastEventId && { 'last-event-id': lastEventId }) },
    signal: controller.signal,
  })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const received: Array<SseEvent<T>> = []
  const ended = (async () => {
    const events = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
    for await (const event of events) received.push({ id: event.id ?? '', event: event.event ?? '', data: JSON.parse(event.data) as T })
  })().catch(() => {})
  return {
    received,
    kinds: () => received.map((r) => r.event),
    ended,
    close: async () => {
      controller.abort()
      await ended
    },
  }
}
