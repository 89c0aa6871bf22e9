import { bearerAuth } from 'hono/bearer-auth'
import type { MiddlewareHandler } from 'hono'
import type { ApiKeys } from '../../../auth/index.js'
import type { HttpEnv } from '../http-env.js'

const unauthorized = (message: string) => ({ ok: false, error: { code: 'unauthorized', message } })

/** Bearer API keys: 401 with a JSON body for a missing, malformed, unknown or revoked key. */
export function apiKeyAuth(keys: ApiKeys): MiddlewareHandler<HttpEnv> {
  const bearer = bearerAuth<HttpEnv>({
    verifyToken: async (token, c) => {
      const caller = await keys.authenticate(token)
      if (!caller) return false
      c.set('caller', caller)
      return true
    },
    noAuthenticationHeader: { message: unauthorized('missing API key: send Authorization: Bearer <key>') },
    invalidAuthenticationHeader: { message: unauthorized('malformed Authorization header: expected Bearer <key>') },
    invalidToken: { message: unauthorized('unknown or revoked API key, or its user is disabled') },
  })
  // hono answers another scheme, or a token with characters no token68 has, with 400; a bad
  // credential is a 401 here.
  return async (c, next) => {
    const header = c.req.header('authorization')
    if (header !== undefined && !/^Bearer +[A-Za-z0-9._~+/-]+=*$/i.test(header.trim())) {
      c.header('WWW-Authenticate', 'Bearer error="invalid_request"')
      return c.json(unauthorized('malformed Authorization header: expected Bearer <key>'), 401)
    }
    return bearer(c, next)
  }
}
