import type { MiddlewareHandler, Context } from 'hono'
import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import { HTTPException } from 'hono/http-exception'
import type { Skillplane } from '../../agents/index.js'
import type { Caller } from '../../skill/index.js'
import { canSee } from '../../access/index.js'
import { abilitiesOf } from '../../abilities/index.js'
import { SkillplaneError } from '../../errors/index.js'
import { VERSION } from '../../version.js'
import type { HttpEnv } from './http-env.js'
import { errorResponse } from './error-response.js'
import { answerable, statusForCode } from './status-for-code.js'
import { allowedMethods } from './allowed-methods.js'
import { apiKeyAuth, bearerCaller, type OAuthAuth } from './middleware/api-key-auth.js'
import { requireAbility } from './middleware/require-ability.js'
import { limitBody } from './middleware/limit-body.js'
import { skillInstallRoutes } from './routes/skill-installs.js'
import { signInRoutes } from './routes/sign-in.js'
import { oauthFlowRoutes } from './routes/oauth-flow.js'
import { connectionRoutes } from './routes/connections.js'
import { DEFAULT_ARCHIVE_LIMITS, maxArchiveBytes } from '../../install/index.js'
import { skillRoutes } from './routes/skills.js'
import { auditRoutes } from './routes/audit.js'
import { statsRoutes } from './routes/stats.js'
import { auditExportRoutes } from './routes/audit-export.js'
import { conversationRoutes } from './routes/conversations.js'
import { agentRoutes } from './routes/agents.js'
import { eventRoutes } from './routes/events.js'
import { approvalRoutes } from './routes/approvals.js'
import { policyRoutes } from './routes/policies.js'
import { connectionValueRoutes } from './routes/connection-values.js'
import { learningRoutes } from './routes/learnings.js'
import { sopRoutes } from './routes/sops.js'
import { edgeRoutes } from './routes/edges.js'
import { userRoutes } from './routes/users.js'
import { groupRoutes } from './routes/groups.js'
import { agentRunRoutes, runRoutes } from './routes/runs.js'
import { OpenApiBuilder } from './openapi/build-openapi.js'
import { checkResponses } from './openapi/check-responses.js'
import { failures, returns, serve } from './openapi/declare.js'
import { Health, Me, ReloadReport, SourcesReport } from './openapi/response-schemas.js'
import { landingPage } from './landing-page.js'
import { McpHttpSessions, type SentSignal } from '../mcp/index.js'
import { consoleRoutes, loadConsoleAssets } from '../console/index.js'
import { checkOrigin, originRules } from './middleware/check-origin.js'
import { databaseUnavailable } from '../../store/index.js'
import { PlaneMetrics } from './metrics/index.js'
import { ProtectedResource, TokenRefusedError, type ResourcePath } from '../../identity/index.js'

// What a 503 for a lost database asks clients to wait before retrying, in seconds.
const RETRY_AFTER_S = 5
// Skills per /openapi.json?page=N, and how many callers' documents are kept.
const OPENAPI_PAGE_SIZE = 500
const OPENAPI_DOCUMENTS_KEPT = 32

/** The HTTP API (Hono): every route answers JSON, failures included. */
/**
 * `bindHost`: the interface the server listens on, for `/mcp`'s default allowed host names.
 * `metrics`: the plane's metrics, served at `/metrics` to admin keys unless `metrics.listen` serves them elsewhere.
 * `listenUrl`: the address the server listens on, this server's public URL when `http.publicUrl` is not set.
 */
export function createHttpApp(
  plane: Skillplane,
  mcp: McpHttpSessions = new McpHttpSessions(plane),
  options: { bindHost?: string; metrics?: PlaneMetrics; listenUrl?: () => string } = {},
): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  // The suite checks every answer against its route's declaration; see check-responses.ts.
  if (process.env.SKILLPLANE_CHECK_RESPONSES === '1') app.use(checkResponses(app))
  const oauth = oauthFor(plane, options.listenUrl)
  // Connect links and the OAuth callback name this server: its public URL, else where it listens.
  if (options.listenUrl) plane.oauth.serveAt(options.listenUrl)
  const base = plane.config.auth.oidc ? baseUrlOf(plane, options.listenUrl) : undefined
  const auth = apiKeyAuth(plane.people.keys, oauth, '', base && { store: plane.people.sessions, secure: () => base().startsWith('https:') })

  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse()
    // A client that hung up mid-request is not a server fault, and nobody reads this answer.
    if (c.req.raw.signal.aborted || clientHungUp(error)) {
      plane.logger.warn({ path: c.req.path, reason: (error as Error).message }, 'the client disconnected before its request was read')
      return errorResponse(c, 'invalid_input', 'the request was cut off before its body was read')
    }
    // A lost database is the server's condition, not a bug: every route says so the same way, whatever wrapped it.
    const down = databaseUnavailable(error)
    if (down) {
      plane.logger.warn({ err: error, path: c.req.path }, 'request failed: the database is unavailable')
      c.header('Retry-After', String(RETRY_AFTER_S))
      return errorResponse(c, 'unavailable', `the database is unavailable: ${down}; retry in a few seconds`)
    }
    // An error thrown on purpose says what the caller gets: routes throw, this answers. A code this
    // version has no status for, or one that says the server failed, is not the caller's to read.
    if (SkillplaneError.isInstance(error) && answerable(error.code)) {
      plane.logger[statusForCode(error.code) >= 500 ? 'error' : 'warn']({ err: error, path: c.req.path, code: error.code }, 'request refused')
      return errorResponse(c, error.code, error.message)
    }
    plane.logger.error({ err: error, path: c.req.path }, 'unhandled HTTP error')
    return errorResponse(c, 'internal', 'internal error; see the server log')
  })
  const methodsAt = allowedMethods(() => app.routes)
  // A path that exists under another method is 405 naming the ones it takes, not an unknown route.
  app.notFound((c) => {
    const allowed = methodsAt(c.req.path)
    if (allowed.length === 0 || allowed.includes(c.req.method)) return errorResponse(c, 'not_found', `no route ${c.req.method} ${c.req.path}`)
    c.header('Allow', allowed.join(', '))
    return errorResponse(c, 'method_not_allowed', `${c.req.path} does not take ${c.req.method}: use ${allowed.join(', ')}`)
  })

  // An uploaded bundle may be as large as an archive may be; every other body keeps the configured limit.
  const apiLimit = limitBody(plane.config.http.maxBodyBytes)
  // The upload streams to disk under its own limit: only a declared length is checked here, so nothing is buffered before the key is.
  const uploadMax = maxArchiveBytes(DEFAULT_ARCHIVE_LIMITS) + 64 * 1024
  const uploadLimit: MiddlewareHandler = async (c, next) => {
    if (Number(c.req.header('content-length') ?? 0) > uploadMax)
      return errorResponse(c, 'payload_too_large', `request body exceeds the ${uploadMax}-byte limit for a bundle`)
    await next()
  }
  app.use('/api/*', (c, next) => (c.req.path === '/api/skills/upload' ? uploadLimit(c, next) : apiLimit(c, next)))
  app.use('/mcp', checkOrigin(originRules(plane.config.http, options.bindHost)))
  app.use('/mcp', limitBody(plane.config.http.maxBodyBytes))

  const health = async (c: Context<HttpEnv>) => {
    const health = { version: VERSION, database: plane.status.dialect, skills: plane.skills.count, manager: plane.status.managerId }
    const down = await plane.status.checkDatabase()
    if (!down) return c.json({ ok: true, ...health })
    c.header('Retry-After', String(RETRY_AFTER_S))
    return c.json({ ok: false, ...health, error: { code: 'unavailable', message: `the database is unavailable: ${down}` } }, 503)
  }
  const healthy = { 200: returns(Health, 'Healthy'), 503: returns(Health, 'The database is unavailable') }
  serve(app, createRoute({ method: 'get', path: '/api/health', summary: 'Liveness and database', security: [], responses: healthy }), health)
  // For load balancers and probes: ready takes traffic only while the database answers; live only says the process serves.
  const ready = createRoute({
    method: 'get',
    path: '/api/health/ready',
    summary: 'Readiness probe: 503 while the database is unreachable',
    security: [],
    responses: healthy,
  })
  serve(app, ready, health)
  const live = createRoute({
    method: 'get',
    path: '/api/health/live',
    summary: 'Liveness probe: the process is up and serving (never reads the database)',
    security: [],
    responses: { 200: returns(Health, 'Live') },
  })
  serve(app, live, (c) => c.json({ ok: true, version: VERSION, manager: plane.status.managerId }))
  if (oauth) {
    // RFC 9728: where OAuth clients learn which identity provider issues tokens for /api (the root) and /mcp.
    const metadata = (path: ResourcePath) => (c: Context<HttpEnv>) => {
      c.header('Access-Control-Allow-Origin', '*')
      return c.json(oauth.resource.metadata(path))
    }
    app.get('/.well-known/oauth-protected-resource', metadata(''))
    app.get('/.well-known/oauth-protected-resource/mcp', metadata('/mcp'))
  }
  app.use('/api/*', auth)
  // Who the key is and what it may do (the ability table of src/access): the console offers only that.
  // A console session's answer carries the CSRF token its changes must send.
  const me = createRoute({
    method: 'get',
    path: '/api/me',
    summary: 'The caller this key, token or console session authenticates as (kind, name, role or agent, and how) and the abilities it holds',
    responses: { 200: returns(Me, '{ caller, abilities, csrfToken? }'), ...failures(401) },
  })
  serve(app, me, (c) =>
    c.json({ caller: c.get('caller'), abilities: abilitiesOf(c.get('caller')), ...(c.get('csrfToken') && { csrfToken: c.get('csrfToken') }) }),
  )
  // MCP over Streamable HTTP, with the same keys: each key sees the tools it may call.
  app.use('/mcp', apiKeyAuth(plane.people.keys, oauth, '/mcp'))
  const { enabled, listen } = plane.config.metrics
  if (enabled && !listen) {
    const metrics = options.metrics ?? new PlaneMetrics(plane, mcp)
    const scrape = createRoute({
      method: 'get',
      path: '/metrics',
      summary: 'Calls, latency, pending approvals, audit queue, MCP, edges and process metrics (Prometheus text; admin)',
      middleware: [auth, requireAbility('readMetrics')] as const,
      responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...failures(401, 403) },
    })
    serve(app, scrape, async (c) => c.body(await metrics.scrape(), 200, { 'content-type': metrics.contentType }))
  }
  // On Node's server the response itself says when it is sent; app.request (tests) has none.
  app.all('/mcp', (c) => mcp.handle(c.req.raw, c.get('caller'), (c.env as { outgoing?: SentSignal } | undefined)?.outgoing))
  app.route('/auth', signInRoutes(plane, base))
  app.route('/oauth', oauthFlowRoutes(plane))
  app.route('/api/connections', connectionRoutes(plane))
  app.route('/api/skills', skillInstallRoutes(plane))
  app.route('/api/skills', skillRoutes(plane))
  // Before the audit routes: their /{callId} would take "export".
  app.route('/api/audit', auditExportRoutes(plane))
  app.route('/api/audit', auditRoutes(plane))
  app.route('/api/stats', statsRoutes(plane))
  app.route('/api/conversations', conversationRoutes(plane))
  app.route('/api/agents', agentRoutes(plane))
  app.route('/api/agents', agentRunRoutes(plane))
  app.route('/api/runs', runRoutes(plane))
  app.route('/api/approvals', approvalRoutes(plane))
  app.route('/api/events', eventRoutes(plane))
  app.route('/api/policies', policyRoutes(plane))
  app.route('/api/secrets', connectionValueRoutes(plane, 'secret'))
  app.route('/api/settings', connectionValueRoutes(plane, 'setting'))
  app.route('/api/learnings', learningRoutes(plane))
  app.route('/api/sops', sopRoutes(plane))
  app.route('/api/edges', edgeRoutes(plane))
  app.route('/api/users', userRoutes(plane))
  app.route('/api/groups', groupRoutes(plane))
  const sources = createRoute({
    method: 'get',
    path: '/api/sources',
    summary:
      'Where the skills come from, by kind (code, built-in, pack, agent-skill, http, mcp, edge): each entry with its state and problems, and the findings (admin)',
    middleware: [requireAbility('manageSources')] as const,
    responses: { 200: returns(SourcesReport, '{ [kind]: { skills, entries, findings } }'), ...failures(401, 403) },
  })
  serve(app, sources, (c) => c.json(plane.sources.report()))
  // Pick up added, changed and removed skill packs and MCP tools without a restart.
  const reload = createRoute({
    method: 'post',
    path: '/api/sources/reload',
    summary: 'Load every source again (packs, SKILL.md folders, OpenAPI documents, MCP tools, edges) and sync the catalog (admin)',
    middleware: [requireAbility('manageSources')] as const,
    responses: { 200: returns(ReloadReport, '{ added, removed, sources, sync }'), ...failures(401, 403, 409) },
  })
  // Reloaded sources holding no skill at all are refused (SyncRefusedError, conflict): the catalog is kept, not orphaned.
  serve(app, reload, async (c) => c.json(await plane.sources.reload()))

  // Without a key the document lists the routes only; with one, also the skills that key may see.
  // Each caller's document (per tag or page) is kept until skills, the catalog or policies change.
  const documents = new Map<string, { version: number; body: Uint8Array<ArrayBuffer> }>()
  // The routes' part of the document, generated once from their declarations (every route is registered by now).
  let routesDocument: Record<string, unknown> | undefined
  const openApi = new OpenApiBuilder()
  app.get('/openapi.json', async (c) => {
    const header = c.req.header('authorization')
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined
    let caller: Caller | null = null
    try {
      caller = token ? await bearerCaller(token, plane.people.keys, oauth) : null
    } catch (error) {
      // A token refused for its subject is 401 here, not 403: this route needs no key at all.
      if (error instanceof TokenRefusedError) return errorResponse(c, 'unauthorized', error.message)
      throw error
    }
    if (token && !caller) return errorResponse(c, 'unauthorized', 'unknown or revoked API key, or its user is disabled')
    const { tag, page: pageText } = c.req.query()
    if (pageText !== undefined && !/^[1-9]\d{0,5}$/.test(pageText))
      return errorResponse(c, 'invalid_input', `page must be a whole number from 1, got ${JSON.stringify(pageText)}`)
    const key = JSON.stringify([caller, tag ?? null, pageText ?? null])
    const version = plane.skills.version()
    const kept = documents.get(key)
    if (kept?.version === version) return c.body(kept.body, 200, { 'content-type': 'application/json' })
    let skills = caller ? plane.skills.list().filter((s) => canSee(caller, s, plane.skills) && (tag === undefined || s.category === tag)) : []
    let paging: { page: number; pages: number; skills: number; pageSize: number } | undefined
    if (pageText !== undefined) {
      const page = Number(pageText)
      const pages = Math.max(1, Math.ceil(skills.length / OPENAPI_PAGE_SIZE))
      if (page > pages) return errorResponse(c, 'invalid_input', `page ${page} is past the last page, ${pages}`)
      paging = { page, pages, skills: skills.length, pageSize: OPENAPI_PAGE_SIZE }
      skills = [...skills].sort((a, b) => (a.key < b.key ? -1 : 1)).slice((page - 1) * OPENAPI_PAGE_SIZE, page * OPENAPI_PAGE_SIZE)
    }
    routesDocument ??= app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'skillplane', version: VERSION } }) as unknown as Record<string, unknown>
    const body = openApi.build({
      routes: routesDocument,
      version: VERSION,
      skills,
      caller: caller ?? undefined,
      extra: paging && { 'x-skillplane-page': paging },
    })
    // Bounded: the oldest document goes first.
    if (documents.size >= OPENAPI_DOCUMENTS_KEPT) documents.delete(documents.keys().next().value!)
    documents.set(key, { version, body })
    return c.body(body, 200, { 'content-type': 'application/json' })
  })

  const assets = loadConsoleAssets()
  if (assets) app.route('/', consoleRoutes(assets))
  else app.get('/', (c) => c.html(landingPage(VERSION)))
  return app
}

/** With `auth.oidc`: this server as a protected resource of the identity provider, at its public URL. */
function oauthFor(plane: Skillplane, listenUrl: (() => string) | undefined): OAuthAuth | undefined {
  const { oidc } = plane.config.auth
  if (!oidc) return undefined
  return {
    resource: new ProtectedResource(oidc, baseUrlOf(plane, listenUrl)),
    context: { resolveAgent: (label) => plane.agents.resolve(label), users: plane.people.users },
  }
}

/** The origin clients reach this server at: `http.publicUrl`, else the address it listens on. */
function baseUrlOf(plane: Skillplane, listenUrl: (() => string) | undefined): () => string {
  const { publicUrl } = plane.config.http
  if (publicUrl === undefined && listenUrl === undefined) throw new Error('auth.oidc needs http.publicUrl: the URL clients reach this server at')
  return publicUrl === undefined ? listenUrl! : () => publicUrl
}

/** Node's error for a request body whose connection closed before it was all read. */
function clientHungUp(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown }
  return code === 'ECONNRESET' && message === 'aborted'
}
