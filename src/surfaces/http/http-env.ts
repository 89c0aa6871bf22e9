import type { Caller } from '../../skill/index.js'

/** Hono variables set by the auth middleware. */
export interface HttpEnv {
  /** `csrfToken`: set when the caller came by a console session, whose changes must carry it. */
  Variables: { caller: Caller; csrfToken?: string }
}
