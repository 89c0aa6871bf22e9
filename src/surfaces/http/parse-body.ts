import type { Context } from 'hono'
import type { z } from 'zod'
import { errorResponse } from './error-response.js'
import { describeZod } from './describe-zod.js'
import { parseInput } from './parse-input.js'

export type ParsedBody<T> = { ok: true; value: T } | { ok: false; response: Response }

/**
 * The request body as JSON (an empty body is `{}`), checked against a schema; on failure, the
 * 400 response naming what is wrong, with `hint` when the body has a field the schema doesn't.
 */
export async function parseBody<T>(c: Context, schema: z.ZodType<T>, what = 'invalid request body', hint?: string): Promise<ParsedBody<T>> {
  const text = await c.req.text()
  let value: unknown = {}
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text)
    } catch {
      // JSON.parse's message quotes the body around the fault, which may be a secret being set.
      return { ok: false, response: errorResponse(c, 'invalid_input', 'request body is not valid JSON') }
    }
  }
  const parsed = parseInput(schema, value)
  if (!parsed.success) {
    const unknownField = hint !== undefined && parsed.error.issues.some((issue) => issue.code === 'unrecognized_keys')
    return { ok: false, response: errorResponse(c, 'invalid_input', `${what}: ${describeZod(parsed.error)}${unknownField ? ` (${hint})` : ''}`) }
  }
  return { ok: true, value: parsed.data }
}
