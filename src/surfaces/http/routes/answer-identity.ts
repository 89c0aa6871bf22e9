import type { Context } from 'hono'
import type { HttpEnv } from '../http-env.js'

/** Answer with what an identity operation returned; its refusal (an AccountError) is answered by the app's onError. */
export async function answerIdentity<T>(c: Context<HttpEnv>, run: () => Promise<T>, status: 200 | 201 = 200): Promise<Response> {
  return c.json(await run(), status)
}
