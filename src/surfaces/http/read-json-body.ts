import type { Context } from 'hono'

export type JsonBody = { ok: true; value: unknown } | { ok: false; message: string }

/** Parse the request body as JSON; an empty body is `{}`. */
export async function readJsonBody(c: Context): Promise<JsonBody> {
  const text = await c.req.text()
  if (text.trim() === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, message: `request body is not valid JSON: ${(error as Error).message}` }
  }
}
