import { Hono, type Context } from 'hono'
import { getCookie } from 'hono/cookie'
import type { Skillplane } from '../../../agents/index.js'
import { SkillplaneError } from '../../../errors/index.js'
import { html } from 'hono/html'
import { sessionCookieName } from '../middleware/api-key-auth.js'

/**
 * The browser's side of a connection: `/oauth/start` opens a connect link and sends the browser to
 * the provider; `/oauth/callback` is where the provider sends it back. A browser signed in to the
 * console as someone else than the link's person is refused at both.
 */
export function oauthFlowRoutes(plane: Skillplane): Hono {
  const app = new Hono()
  const { oauth } = plane
  const browserUser = async (c: Context): Promise<string | null> => {
    const token = getCookie(c, sessionCookieName(true)) ?? getCookie(c, sessionCookieName(false))
    if (token === undefined) return null
    const session = await plane.people.sessions.authenticate(token)
    return session?.caller.name ?? null
  }

  app.get('/start', async (c) => {
    try {
      const user = await browserUser(c)
      // With a console sign-in, the person signs in first and comes back to the same link.
      if (user === null && plane.config.auth.oidc)
        return c.redirect(`/auth/login?returnTo=${encodeURIComponent(`/oauth/start?link=${c.req.query('link') ?? ''}`)}`)
      const to = await oauth.begin(c.req.query('link'), user)
      return c.redirect(to.href)
    } catch (error) {
      return failed(c, plane, error)
    }
  })

  app.get('/callback', async (c) => {
    try {
      const done = await oauth.complete(new URL(c.req.url).searchParams, await browserUser(c))
      const back = new URL(done.returnTo, 'http://console.invalid')
      back.searchParams.set('connected', done.provider)
      if (done.missingScopes.length > 0) back.searchParams.set('missingScopes', done.missingScopes.join(' '))
      return c.redirect(`${back.pathname}${back.search}`)
    } catch (error) {
      return failed(c, plane, error)
    }
  })
  return app
}

/** A page a person reads: what went wrong, and the way back. Nothing a provider or a link sent is echoed unescaped. */
async function failed(c: Context, plane: Skillplane, error: unknown): Promise<Response> {
  const known = SkillplaneError.isInstance(error)
  if (!known) plane.logger.error({ err: error, path: c.req.path }, 'an OAuth connection failed')
  else plane.logger.warn({ path: c.req.path, code: error.code, reason: error.message }, 'an OAuth connection was refused')
  const message = known ? error.message : 'the connection failed; see the server log'
  const status = known && error.code === 'unavailable' ? 503 : known ? 400 : 500
  if (status === 503) c.header('Retry-After', '5')
  c.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
  // hono/html escapes what it interpolates.
  return c.html(
    await html`<!doctype html>
      <html>
        <head>
          <meta charset="utf-8" />
          <title>Connection not made</title>
        </head>
        <body>
          <h1>Connection not made</h1>
          <p id="reason">${message}</p>
          <p><a href="/connections">Back to your connections</a></p>
        </body>
      </html>`,
    status,
  )
}
