import { Hono, type Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { Skillplane } from '../../../agents/index.js'
import { SkillplaneError } from '../../../errors/index.js'
import { html } from 'hono/html'
import { sessionCookieName } from '../middleware/api-key-auth.js'

/**
 * The browser's side of a connection: `/oauth/start` opens a connect link and sends the browser to
 * the provider; `/oauth/callback` is where the provider sends it back, finishing only in the browser
 * that started (its cookie). A browser signed in to the console as someone else than the link's
 * person is refused at both.
 */
export function oauthFlowRoutes(plane: Skillplane): Hono {
  const app = new Hono()
  const { oauth } = plane
  // Over https only the __Host- session cookie counts: a plain one could be planted from a sibling subdomain.
  const secure = () => (plane.config.http.publicUrl ?? '').startsWith('https:')
  const browserUser = async (c: Context): Promise<string | null> => {
    const token = getCookie(c, sessionCookieName(secure()))
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
      const started = await oauth.begin(c.req.query('link'), user)
      // Lax: the provider's redirect back is a top-level navigation, which carries it.
      setCookie(c, started.cookie.name, started.cookie.value, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/oauth/callback',
        maxAge: Math.ceil(plane.config.oauth.linkTtlMs / 1000),
        secure: secure(),
      })
      return c.redirect(started.url.href)
    } catch (error) {
      return failed(c, plane, error)
    }
  })

  app.get('/callback', async (c) => {
    try {
      const query = new URL(c.req.url).searchParams
      let used: string | undefined
      const done = await oauth.complete(query, await browserUser(c), (name) => {
        used = name
        return getCookie(c, name)
      })
      // Kept when the callback failed for a while (the provider down): the same page finishes it later.
      deleteCookie(c, used!, { path: '/oauth/callback', secure: secure() })
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
