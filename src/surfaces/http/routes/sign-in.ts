import type { Context } from 'hono'
import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { IdentityProviderUnavailableError, OidcSignIn, SignInError, noRoleReason, providerUser } from '../../../identity/index.js'
import { SESSION_HOURS } from '../../../accounts/index.js'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { returns, serve } from '../openapi/declare.js'
import { SignInConfig } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { sameSecret, sessionCookieName } from '../middleware/api-key-auth.js'

const config = createRoute({
  method: 'get',
  path: '/config',
  summary:
    "How the console's sign-in page may sign in: { oidc: { issuer, signInUrl } } with an identity provider configured, else { oidc: null }; session: whether the request's cookie holds a live console session",
  security: [],
  responses: { 200: returns(SignInConfig, '{ oidc, session }') },
})

// Binds a sign-in to the browser that started it: a callback from a link someone else started (login CSRF) finds no cookie.
const signInCookieName = (secure: boolean) => (secure ? '__Host-skillplane_sign_in' : 'skillplane_sign_in')
const SIGN_IN_SECONDS = 600

/**
 * The console's sign-in with the identity provider (`auth.oidc`): `/auth/login` sends the browser to
 * the provider, `/auth/callback` opens a session in an HTTP-only cookie, `/auth/logout` ends it.
 * `/auth/config` tells the sign-in page whether there is a provider to offer.
 */
export function signInRoutes(plane: Skillplane, baseUrl: (() => string) | undefined): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const { oidc } = plane.config.auth
  if (!oidc || !baseUrl) {
    serve(app, config, (c) => c.json({ oidc: null, session: false }))
    return app
  }
  const clientSecret = oidc.clientSecretEnv === undefined ? undefined : process.env[oidc.clientSecretEnv]
  const signIn = new OidcSignIn(oidc, { clientSecret, redirectUri: () => `${baseUrl()}/auth/callback` })
  const secure = () => baseUrl().startsWith('https:')
  const cookies = () => ({ session: sessionCookieName(secure()), signIn: signInCookieName(secure()) })
  // `session`: whether this browser's HTTP-only cookie holds a live session, which the console's script can't read; it asks
  // GET /api/me only then, so a browser that is not signed in sees no 401.
  serve(app, config, async (c) => {
    const token = getCookie(c, cookies().session)
    const session = token !== undefined && (await plane.people.sessions.authenticate(token)) !== null
    return c.json({ oidc: { issuer: oidc.issuer, signInUrl: '/auth/login' }, session })
  })
  // Back to the console with the reason shown on its sign-in page.
  const failed = (c: Context, message: string) => c.redirect(`/?signInError=${encodeURIComponent(message)}`)

  app.get('/login', async (c) => {
    const returnTo = consolePath(c.req.query('returnTo'))
    const started = await signIn.begin()
    await plane.people.sessions.startSignIn(started.checks, returnTo)
    setCookie(c, cookies().signIn, started.checks.state, { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: SIGN_IN_SECONDS, secure: secure() })
    return c.redirect(started.url.href)
  })

  app.get('/callback', async (c) => {
    const state = c.req.query('state') ?? ''
    const mine = getCookie(c, cookies().signIn)
    deleteCookie(c, cookies().signIn, { path: '/', secure: secure() })
    if (!state || !sameSecret(mine, state)) return failed(c, 'this sign-in was not started in this browser: start it again')
    const checks = await plane.people.sessions.takeSignIn(state)
    if (!checks) return failed(c, 'this sign-in expired or was used already: start it again')
    let claims: Record<string, unknown>
    try {
      claims = await signIn.complete(new URL(`${baseUrl()}/auth/callback?${new URL(c.req.url).searchParams}`), checks)
    } catch (error) {
      if (error instanceof SignInError || error instanceof IdentityProviderUnavailableError) return failed(c, error.message)
      throw error
    }
    const { user, role } = await providerUser(claims, oidc, plane.people.users)
    if (user.disabled_at !== null) return failed(c, `user "${user.name}" is disabled`)
    if (!role) return failed(c, `${user.display_name ?? user.name} has no skillplane role: ${noRoleReason(oidc)}`)
    // A sign-in replaces the browser's earlier session rather than leaving it live.
    const earlier = getCookie(c, cookies().session)
    if (earlier !== undefined) await plane.people.sessions.close(earlier)
    const session = await plane.people.sessions.open(user.id)
    await plane.audit.events.record('session.opened', `user:${user.id}`, { id: user.id, name: user.name }, { role, expiresAt: session.expiresAt })
    setCookie(c, cookies().session, session.token, { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: SESSION_HOURS * 3600, secure: secure() })
    return c.redirect(checks.returnTo)
  })

  app.post('/logout', async (c) => {
    const token = getCookie(c, cookies().session)
    if (token !== undefined) {
      const found = await plane.people.sessions.authenticate(token)
      // Only the console's own page can sign its session out: it alone knows the CSRF token.
      if (found && !sameSecret(c.req.header('x-csrf-token'), found.csrfToken))
        return errorResponse(c, 'denied', 'signing out needs the session’s CSRF token in x-csrf-token')
      await plane.people.sessions.close(token)
      if (found) await plane.audit.events.record('session.closed', `user:${found.caller.id}`, { id: found.caller.id, name: found.caller.name }, {})
    }
    deleteCookie(c, cookies().session, { path: '/', secure: secure() })
    return c.body(null, 204)
  })
  return app
}

/** A console path to return to: same origin only (`/…`, never `//host` or a URL). */
function consolePath(value: string | undefined): string {
  return value !== undefined && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : '/'
}
