import type { MiddlewareHandler } from 'hono'
import { can, missingAbility, type Ability } from '../../../abilities/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'

/** 403 unless the caller holds this ability of the table in src/access. Tagged with it, so a test can read what each route declares. */
export function requireAbility(ability: Ability): MiddlewareHandler<HttpEnv> & { ability: Ability } {
  const middleware: MiddlewareHandler<HttpEnv> = async (c, next) => {
    const caller = c.get('caller')
    if (!can(caller, ability)) return errorResponse(c, 'denied', missingAbility(caller, ability))
    await next()
  }
  return Object.assign(middleware, { ability })
}
