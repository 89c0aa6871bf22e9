import { z } from 'zod'
import type { Handler } from 'hono'
import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi'
import type { HttpEnv } from '../http-env.js'
import { Failure } from './response-schemas.js'
import type { JsonSchema } from '../../../skill/index.js'

// Helpers for the routes' declarations (`createRoute`). Requests are documented from the zod schemas
// the handlers parse with (parseBody, parseInput), as plain JSON Schema: @hono/zod-openapi validates
// only zod schemas, so the handlers keep their own messages and error envelope.

export const ERROR_TEXT: Record<number, string> = {
  202: 'Approval required',
  400: 'Invalid input or request',
  401: 'Missing or unknown API key',
  403: 'Denied',
  404: 'Not found',
  409: 'A conflict: the request is no longer pending or already decided by this approver; a skill not synced yet',
  410: 'Approval expired',
  413: 'Request body too large',
  424: 'Nothing ran: a secret or setting is not set, or the account is not connected (details.authorizationUrl: where the person connects it)',
  500: 'A template failed to render, or an internal error',
  501: 'The skill asked its caller something (elicitation, sampling) this call has no channel to answer',
  502: 'Executor error, invalid output or edge unavailable',
  503: 'Skill unavailable or disabled',
  504: 'Deadline exceeded',
}

/** A request schema as JSON Schema, from the zod schema the route validates with. */
export const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  return rest
}

type Responses = RouteConfig['responses']
/** `/{key}/invoke` as Hono writes it, `/:key/invoke`, so the handler's `c.req.param('key')` is typed. */
type HonoPath<P extends string> = P extends `${infer A}{${infer B}}${infer C}` ? `${A}:${B}${HonoPath<C>}` : P

/**
 * Serve a declared route. Its answers are checked against the declaration at run time (check-responses.ts),
 * not by the compiler: handlers answer failures through errorResponse with any status its code has.
 */
export function serve<P extends string>(app: OpenAPIHono<HttpEnv>, route: RouteConfig & { path: P }, handler: Handler<HttpEnv, HonoPath<P>>): void {
  app.openapi(route, handler as never)
}

/** A JSON answer with its schema. */
export const returns = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } })

/** The error statuses a route may answer, each with the Failure envelope. */
export const failures = (...statuses: number[]): Responses =>
  Object.fromEntries(statuses.map((s) => [s, { description: ERROR_TEXT[s] ?? 'Error', content: { 'application/json': { schema: Failure } } }]))

/** The query parameters of a route, from the schema its handler parses the query with. */
export function query(schema: z.ZodType): Pick<RouteConfig, 'parameters'> {
  const json = jsonSchemaOf(schema)
  const required = new Set((json.required as string[] | undefined) ?? [])
  return {
    parameters: Object.entries((json.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
      const { description, ...rest } = property
      return { name, in: 'query', ...(required.has(name) && { required: true }), ...(description !== undefined && { description }), schema: rest }
    }) as NonNullable<RouteConfig['parameters']>,
  }
}

/** A JSON (or multipart) request body, from the schema its handler parses the body with; required unless it may be left out. */
export function body(schema: z.ZodType, options: { multipart?: boolean } = {}) {
  return {
    body: {
      required: !schema.safeParse(undefined).success,
      content: { [options.multipart ? 'multipart/form-data' : 'application/json']: { schema: jsonSchemaOf(schema) } },
    },
  }
}

/** The path parameters of a route path (`/{key}/invoke`), each a string. */
export function params(path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  return { params: z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) }
}
