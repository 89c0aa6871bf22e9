import type { Context, MiddlewareHandler } from 'hono'
import { timingSafeEqual } from 'node:crypto'
import { getCookie } from 'hono/cookie'
import type { ApiKeys, Sessions } from '../../../accounts/index.js'
import {
  IdentityProviderUnavailableError,
  InvalidTokenError,
  type ProtectedResource,
  type ResourcePath,
  type TokenCallerContext,
} from '../../../identity/index.js'
import type { Caller } from '../../../skill/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'

/** With `auth.oidc`: the provider's access tokens are accepted too, and 401s point clients at the resource's metadata. */
export interface OAuthAuth {
  resource: ProtectedResource
  context: TokenCallerContext
}

// What a 503 for an unreachable identity provider asks clients to wait before retrying, in seconds.
const RETRY_AFTER_S = 5
const KEY_PREFIX = 'sp_'
// Three base64url segments; an unsigned token's last one is empty, and is refused as such.
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/**
 * The caller of a bearer credential, told apart by its shape: an API key (`sp_…`), or, with `auth.oidc`,
 * a JWT access token. Null for an unknown or revoked key; a refused token throws the identity module's errors.
 */
export async function bearerCaller(token: string, keys: Pick<ApiKeys, 'authenticate'>, oauth: OAuthAuth | undefined): Promise<Caller | null> {
  if (oauth && !token.startsWith(KEY_PREFIX) && JWT_SHAPE.test(token)) return oauth.resource.callerFor(token, oauth.context)
  return keys.authenticate(token)
}

/**
 * Bearer API keys, and access tokens with `auth.oidc`: 401 with a JSON body for a missing, malformed,
 * unknown or refused credential, its `WWW-Authenticate` naming the metadata of the resource at `path`.
 */
export function apiKeyAuth(
  keys: Pick<ApiKeys, 'authenticate'>,
  oauth?: OAuthAuth,
  path: ResourcePath = '',
  sessions?: SessionAuth,
): MiddlewareHandler<HttpEnv> {
  const what = oauth ? 'API key or access token' : 'API key'
  const refuse = (c: Context, message: string, error?: 'invalid_request' | 'invalid_token') => {
    const params = [
      ...(oauth ? [`resource_metadata="${oauth.resource.metadataUrl(path)}"`] : []),
      ...(error ? [`error="${error}"`] : []),
      ...(oauth && error === 'invalid_token' ? [`error_description="${message.replace(/["\\]/g, '')}"`] : []),
    ]
    c.header('WWW-Authenticate', params.length > 0 ? `Bearer ${params.join(', ')}` : 'Bearer realm=""')
    return c.json({ ok: false, error: { code: 'unauthorized', message } }, 401)
  }
  return async (c, next) => {
    const header = c.req.header('authorization')
    const cookie = sessions && header === undefined ? getCookie(c, sessionCookieName(sessions.secure())) : undefined
    if (cookie !== undefined) return sessionAuth(c, next, sessions!.store, cookie, refuse)
    if (header === undefined) return refuse(c, `missing ${what}: send Authorization: Bearer <${oauth ? 'credential' : 'key'}>`)
    // Another scheme, or a token with characters no token68 has, is a bad credential: 401, not 400.
    const token = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim())?.[1]
    if (token === undefined) return refuse(c, `malformed Authorization header: expected Bearer <${oauth ? 'credential' : 'key'}>`, 'invalid_request')
    let caller: Caller | null
    try {
      caller = await bearerCaller(token, keys, oauth)
    } catch (error) {
      if (error instanceof InvalidTokenError) return refuse(c, error.message, 'invalid_token')
      if (error instanceof IdentityProviderUnavailableError) {
        c.header('Retry-After', String(RETRY_AFTER_S))
        return errorResponse(c, 'unavailable', error.message)
      }
      throw error
    }
    if (!caller)
      return refuse(
        c,
        oauth && !token.startsWith(KEY_PREFIX) ? 'neither an API key nor a JWT access token' : 'unknown or revoked API key, or its user is disabled',
        'invalid_token',
      )
    c.set('caller', caller)
    await next()
  }
}

/** Console sessions (with `auth.oidc`): where they live, and whether the server is reached over https. */
export interface SessionAuth {
  store: Pick<Sessions, 'authenticate'>
  secure(): boolean
}

/**
 * The console session's cookie, set by the identity provider's sign-in (`/auth/callback`). Over
 * https it is a `__Host-` cookie: the browser takes it only from this exact host, Secure, for every path.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-skillplane_session' : 'skillplane_session'
}

// A session's changes carry its CSRF token in this header: a page of another site can send the cookie, never the header.
const CSRF_HEADER = 'x-csrf-token'

async function sessionAuth(
  c: Context<HttpEnv>,
  next: () => Promise<void>,
  sessions: Pick<Sessions, 'authenticate'>,
  token: string,
  refuse: (c: Context, message: string, error?: 'invalid_request' | 'invalid_token') => Response,
) {
  const found = await sessions.authenticate(token)
  if (!found) return refuse(c, 'the console session ended (signed out, expired, or its user disabled): sign in again', 'invalid_token')
  if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method) && !sameSecret(c.req.header(CSRF_HEADER), found.csrfToken))
    return errorResponse(c, 'denied', `a change through a console session needs its CSRF token in the ${CSRF_HEADER} header (GET /api/me gives it)`)
  c.set('caller', found.caller)
  c.set('csrfToken', found.csrfToken)
  await next()
}

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
