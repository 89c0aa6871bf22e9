import type { Caller } from '../../skill/index.js'

/** Hono variables set by the auth middleware. */
export interface HttpEnv {
  Variables: { caller: Caller }
}
