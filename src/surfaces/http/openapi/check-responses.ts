import type { MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { z } from 'zod'
import { describeZod } from '../describe-zod.js'
import type { HttpEnv } from '../http-env.js'

type Declared = Map<string, Record<string, z.ZodType>>

/**
 * Checks each 2xx JSON answer against the schema its route declares, and answers 500 naming the
 * difference when it does not match: the suite runs with it (SKILLPLANE_CHECK_RESPONSES=1), so the
 * document can't promise what a route doesn't send. Off in production: it parses every answer twice.
 */
export function checkResponses(app: OpenAPIHono<HttpEnv>): MiddlewareHandler {
  let declared: Declared | undefined
  return async (c, next) => {
    await next()
    const { status } = c.res
    if (status < 200 || status >= 300 || !c.res.headers.get('content-type')?.startsWith('application/json')) return
    // The first route matched by method is the one that answered: its path is the declaration's.
    const route = matchedRoutes(c).find((r) => r.method === c.req.method)
    declared ??= declarations(app)
    const schema = route && declared.get(`${c.req.method} ${route.path}`)?.[String(status)]
    if (!schema) {
      if (route && declared.has(`${c.req.method} ${route.path}`))
        c.res = mismatch(`${c.req.method} ${route.path} answered ${status}, which it does not declare`)
      return
    }
    const parsed = schema.safeParse(await c.res.clone().json())
    if (!parsed.success) c.res = mismatch(`${c.req.method} ${route.path} answered ${status} unlike its declared schema: ${describeZod(parsed.error)}`)
  }
}

function mismatch(message: string): Response {
  return Response.json({ ok: false, error: { code: 'internal', message: `response check: ${message}` } }, { status: 500 })
}

function declarations(app: OpenAPIHono<HttpEnv>): Declared {
  const declared: Declared = new Map()
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== 'route') continue
    const { method, path, responses } = definition.route
    const schemas: Record<string, z.ZodType> = {}
    for (const [status, response] of Object.entries(responses)) {
      const schema = (response as { content?: Record<string, { schema?: unknown }> }).content?.['application/json']?.schema
      if (schema && typeof (schema as z.ZodType).safeParse === 'function') schemas[status] = schema as z.ZodType
    }
    declared.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`, schemas)
  }
  return declared
}
