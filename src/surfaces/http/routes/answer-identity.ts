import type { Context } from 'hono'
import { IdentityError } from '../../../auth/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'

/** Answer with what an identity operation returned, or the refusal it threw. */
export async function answerIdentity<T>(c: Context<HttpEnv>, run: () => Promise<T>, status: 200 | 201 = 200): Promise<Response> {
  try {
    return c.json(await run(), status)
  } catch (error) {
    if (error instanceof IdentityError) return errorResponse(c, error.code, error.message)
    throw error
  }
}
