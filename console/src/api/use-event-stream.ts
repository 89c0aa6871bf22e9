import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { authHeaders, keyRefused } from './client'

export interface StreamEvent {
  id?: string
  event?: string
  data: string
}

// Reconnects back off from 1 s to 30 s, as a dropped stream usually means a restarting server.
const RETRY_MS = 1000
const MAX_RETRY_MS = 30_000

/**
 * Server-sent events with the API key (or the session cookie): EventSource can't send an Authorization header, so this
 * reads the stream with fetch, and reconnects with Last-Event-ID as EventSource would.
 * Returns whether the stream is connected.
 */
export function useEventStream(path: string | null, onEvent: (event: StreamEvent) => void, until?: (event: StreamEvent) => boolean): boolean {
  const [live, setLive] = useState(false)
  // The latest callbacks, without reconnecting when they change.
  const handler = useRef(onEvent)
  const done = useRef(until)
  useLayoutEffect(() => {
    handler.current = onEvent
    done.current = until
  })
  useEffect(() => {
    if (!path) return
    const abort = new AbortController()
    let lastId: string | undefined
    let finished = false
    const connect = async () => {
      let delay = RETRY_MS
      while (!abort.signal.aborted && !finished) {
        try {
          const response = await fetch(path, {
            headers: { ...authHeaders(), accept: 'text/event-stream', ...(lastId && { 'last-event-id': lastId }) },
            signal: abort.signal,
          })
          // Refused, not dropped: asking again would be refused again (EventSource stops too).
          if (response.status >= 400 && response.status < 500) {
            if (response.status === 401) keyRefused()
            finished = true
            break
          }
          if (!response.ok || !response.body) throw new Error(`${response.status}`)
          setLive(true)
          delay = RETRY_MS
          const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
          for await (const event of events as unknown as AsyncIterable<StreamEvent>) {
            if (event.id) lastId = event.id
            handler.current(event)
            if (done.current?.(event)) {
              finished = true
              break
            }
          }
        } catch {
          // Dropped, or the server is away: try again after a while.
        }
        setLive(false)
        if (!finished && !abort.signal.aborted) {
          await new Promise((resolve) => setTimeout(resolve, delay))
          delay = Math.min(delay * 2, MAX_RETRY_MS)
        }
      }
    }
    void connect()
    return () => abort.abort()
  }, [path])
  return live
}
