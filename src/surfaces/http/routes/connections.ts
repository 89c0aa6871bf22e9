import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { can } from '../../../abilities/index.js'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, query, returns, serve } from '../openapi/declare.js'
import { AuthorizationLink, OAuthConnection, OAuthConnections } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { authorizeBody, connectionsQuery, disconnectQuery } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'

/**
 * `/api/connections`: people's OAuth connections. A person lists, connects and disconnects their own;
 * admins also the service account's, and see and disconnect anyone's. Tokens never come out.
 */
export function connectionRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const { oauth } = plane
  // Agent keys act for no person: they have no connections of their own to make.
  const person = (c: Context<HttpEnv>) => {
    const caller = c.get('caller')
    return caller.kind === 'user' && can(caller, 'connectAccounts') ? caller : null
  }
  const noPerson = (c: Context<HttpEnv>) =>
    errorResponse(c, 'denied', 'connections belong to people: an agent key has none (the person it acts for connects their own)')
  const unknown = (c: Context<HttpEnv>, provider: string) =>
    errorResponse(
      c,
      'not_found',
      `no OAuth provider named ${JSON.stringify(provider)}; configured: ${
        oauth
          .providers()
          .map((p) => p.name)
          .join(', ') || 'none'
      }`,
    )

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: "The providers, and the caller's connections and the service account's (admins: everyone's with all=true); never a token",
    middleware: [requireAbility('connectAccounts')] as const,
    ...query(connectionsQuery),
    responses: { 200: returns(OAuthConnections, '{ providers, connections }'), ...failures(400, 401, 403) },
  })
  serve(app, list, async (c) => {
    const caller = person(c)
    if (!caller) return noPerson(c)
    const q = parseInput(connectionsQuery, c.req.query())
    if (!q.success) return errorResponse(c, 'invalid_input', `invalid query: ${describeZod(q.error)}`)
    const all = q.data.all === 'true'
    if (all && !can(caller, 'manageConnections')) return errorResponse(c, 'denied', "only admins see everyone's connections")
    return c.json({ providers: oauth.providers(), connections: await oauth.list(all ? {} : { subject: caller.name }) })
  })

  const authorize = createRoute({
    method: 'post',
    path: '/{provider}/authorize',
    summary: "A link that connects the caller's account (or, for admins, the service account) at the provider: open it in that person's browser",
    middleware: [requireAbility('connectAccounts')] as const,
    request: { ...params('/{provider}/authorize'), ...body(authorizeBody) },
    responses: { 200: returns(AuthorizationLink, '{ authorizationUrl, expiresInMs }'), ...failures(400, 401, 403, 404) },
  })
  serve(app, authorize, async (c) => {
    const caller = person(c)
    if (!caller) return noPerson(c)
    const provider = c.req.param('provider')
    const parsed = await parseBody(c, authorizeBody, 'invalid authorization request')
    if (!parsed.ok) return parsed.response
    if (!oauth.has(provider)) return unknown(c, provider)
    const { account, scopes = [], returnTo } = parsed.value
    if (account === 'service' && !can(caller, 'manageConnections')) return errorResponse(c, 'denied', 'only admins connect the service account')
    const subject = account === 'service' ? '' : caller.name
    return c.json({
      authorizationUrl: oauth.authorizationUrl(provider, subject, scopes, { returnTo, by: caller.name }),
      expiresInMs: plane.config.oauth.linkTtlMs,
    })
  })

  const disconnect = createRoute({
    method: 'delete',
    path: '/{provider}',
    summary:
      "Disconnect: the tokens are deleted, and revoked at the provider where it offers that (RFC 7009). Admins: the service account's or another person's",
    middleware: [requireAbility('connectAccounts')] as const,
    ...query(disconnectQuery),
    request: params('/{provider}'),
    responses: { 200: returns(OAuthConnection, 'The connection as it was, with revoked'), ...failures(400, 401, 403, 404) },
  })
  serve(app, disconnect, async (c) => {
    const caller = person(c)
    if (!caller) return noPerson(c)
    const q = parseInput(disconnectQuery, c.req.query())
    if (!q.success) return errorResponse(c, 'invalid_input', `invalid query: ${describeZod(q.error)}`)
    const provider = c.req.param('provider')
    if (!oauth.has(provider)) return unknown(c, provider)
    const { account, user } = q.data
    if (account === 'service' && user !== undefined) return errorResponse(c, 'invalid_input', 'give account=service or user, not both')
    const subject = account === 'service' ? '' : (user ?? caller.name)
    if (subject !== caller.name && !can(caller, 'manageConnections'))
      return errorResponse(c, 'denied', "only admins disconnect the service account or another person's connection")
    const done = await oauth.disconnect(provider, subject, caller)
    if (!done) return errorResponse(c, 'not_found', `${subject === '' ? 'the service account' : subject} has no ${provider} connection`)
    return c.json(done)
  })
  return app
}
