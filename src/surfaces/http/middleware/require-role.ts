import type { MiddlewareHandler } from 'hono'
import type { CallerRole } from '../../../skill/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'

const RANK: Record<CallerRole, number> = { viewer: 0, operator: 1, admin: 2 }

/** 403 unless the caller is a human key with at least this role (agent keys never pass). */
export function requireRole(minimum: CallerRole): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const caller = c.get('caller')
    if (caller.kind !== 'user' || RANK[caller.role] < RANK[minimum]) {
      const who = caller.kind === 'agent' ? 'an agent key' : `role ${caller.role}`
      return errorResponse(c, 'denied', `${who} may not do this: it needs the ${minimum} role or higher`)
    }
    await next()
  }
}
