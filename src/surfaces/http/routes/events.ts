import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import type { Skillplane } from '../../../agents/index.js'
import type { AuditEvent } from '../../../audit/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, serve } from '../openapi/declare.js'
import { mayViewApproval } from '../../../abilities/index.js'
import { SSE_KEEP_ALIVE_MS } from '../sse-keep-alive.js'

// Events a reconnecting client is sent from before it connected, at most.
const REPLAY = 500
// Longer than the tail's window, within which it could still deliver a replayed event live.
const REMEMBER_MS = 30_000
const GRANT_EVENT = /^approval\.grant_/

/**
 * `GET /api/events`: server-sent events of approval requests as they are created and decided on
 * any manager, each with the request as it is now, to the callers who may see it.
 */
export function eventRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const stream = createRoute({
    method: 'get',
    path: '/',
    summary: 'Approval requests as they are created and decided, as server-sent events',
    responses: {
      200: {
        description:
          'An event stream: `event` is the audit event kind (approval.created, approval.approval, approval.approved, approval.grant_created, …), `data` { id, kind, at, actor, approval } (grant events add scope and grant or policy); resume with Last-Event-ID',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...failures(401),
    },
  })
  serve(app, stream, (c) => {
    const caller = c.get('caller')
    const lastEventId = c.req.header('last-event-id')
    return streamSSE(c, async (stream) => {
      let closed = false
      let queue = Promise.resolve()
      // An event written while the missed ones are read can come both ways: for a while after a
      // replay, what was sent is remembered so each goes once.
      const sent = new Set<string>()
      let remember = false
      const send = (event: AuditEvent) => {
        if (!event.kind.startsWith('approval.') || !event.subject.startsWith('approval:')) return
        if (remember) {
          if (sent.has(event.id)) return
          sent.add(event.id)
        }
        // One at a time, in order: each waits for the request's current state.
        queue = queue.then(async () => {
          if (closed) return
          const approval = await plane.approvals.get(event.subject.slice('approval:'.length))
          if (!approval || !mayViewApproval(caller, approval) || closed) return
          await stream.writeSSE({
            id: event.id,
            event: event.kind,
            // A grant event also carries what was granted or revoked: `scope` and `grant` or `policy`.
            data: JSON.stringify({
              id: event.id,
              kind: event.kind,
              at: event.createdAt,
              actor: event.actor,
              approval,
              ...(GRANT_EVENT.test(event.kind) && event.details),
            }),
          })
        })
        queue = queue.catch(() => {})
      }
      const tail = plane.audit.events.tail
      const unsubscribe = tail.subscribe(send)
      const stop = () => {
        closed = true
        unsubscribe()
      }
      stream.onAbort(stop)
      // A client gone before the listener was set is not told again.
      if (stream.aborted) stop()
      await tail.ready()
      // A reconnecting browser says what it saw last: what came after is sent first.
      if (lastEventId && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(lastEventId)) {
        remember = true
        for (const event of await tail.after(lastEventId, REPLAY)) send(event)
        setTimeout(() => {
          remember = false
          sent.clear()
        }, REMEMBER_MS).unref()
      }
      // Headers go out now, so a client knows it is listening before any event.
      await stream.write(': listening\n\n')
      while (!closed) {
        await stream.sleep(SSE_KEEP_ALIVE_MS)
        if (!closed) await stream.write(': keep-alive\n\n')
      }
    })
  })

  return app
}
