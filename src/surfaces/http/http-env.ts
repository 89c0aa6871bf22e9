import type { Caller } from '../../skill/skill-types.js'

/** Hono variables set by the auth middleware. */
export interface HttpEnv {
  Variables: { caller: Caller }
}
