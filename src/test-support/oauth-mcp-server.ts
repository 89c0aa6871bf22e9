import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { completable } from '@modelcontextprotocol/sdk/server/completable.js'
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js'
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js'
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js'

export interface OAuthMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`: also the resource its tokens must name. */
  url: string
  /** The tokens of `subject` it has seen are refused from now on (401 invalid_token), as if revoked at the provider; later ones are taken. */
  refuse(subject: string): void
  /** The subjects whose tokens opened each live session. */
  sessions(): string[]
  close(): Promise<void>
}

/**
 * A real MCP server that requires OAuth, built with the MCP SDK's own server-side auth: bearer tokens
 * checked by `requireBearerAuth` (JWTs of the test identity provider, for this server as the resource),
 * a 401 naming its protected-resource metadata (RFC 9728), served by `mcpAuthMetadataRouter`.
 * Tools: `whoami` (the subject and scopes of the token it saw) and `echo_token` (the token itself, to
 * show a result never carries it). With `personal`, each session also lists the person's own resource
 * `private://<subject>/inbox`, template `private://<subject>/notes/{n}` and prompts `<subject>_digest` and
 * `<subject>_brief` (its `topic` completed with the person's topics), as a server whose lists depend on the
 * account does; it takes subscriptions, its tool `touch` sends an update of the person's inbox (when this session
 * is subscribed to it: "sent", else "not subscribed"), and `add_note`
 * adds a resource and a prompt to the person's lists.
 */
export async function startOAuthMcpServer(options: { issuer: string; scopes?: string[]; personal?: boolean }): Promise<OAuthMcpServer> {
  const app = createMcpExpressApp()
  const http: Server = app.listen(0, '127.0.0.1')
  await once(http, 'listening')
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  const oauthMetadata = await discoverAuthorizationServerMetadata(options.issuer)
  if (!oauthMetadata) throw new Error(`no metadata at ${options.issuer}`)
  const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri!))
  const refused = new Set<string>()
  const seen = new Map<string, Set<string>>()
  const transports = new Map<string, { transport: StreamableHTTPServerTransport; subject: string }>()

  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let payload
      try {
        ;({ payload } = await jwtVerify(token, jwks, { issuer: oauthMetadata.issuer, audience: url }))
      } catch (error) {
        throw new InvalidTokenError(`the token does not check out: ${(error as Error).message}`)
      }
      if (refused.has(token)) throw new InvalidTokenError('the token was revoked')
      seen.set(String(payload.sub), (seen.get(String(payload.sub)) ?? new Set()).add(token))
      return {
        token,
        clientId: String(payload.client_id),
        scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
        expiresAt: payload.exp,
        resource: new URL(url),
        extra: { subject: payload.sub },
      }
    },
  }

  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata,
      resourceServerUrl: new URL(url),
      scopesSupported: options.scopes ?? ['openid', 'offline_access'],
      resourceName: 'OAuth test MCP server',
    }),
  )
  const bearer = requireBearerAuth({ verifier, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)), expectedResource: new URL(url) })

  const mcpServer = (subject: string): McpServer => {
    const server = new McpServer({ name: 'oauth-test', version: '1.0.0' })
    if (options.personal) {
      server.registerResource('inbox', `private://${subject}/inbox`, { description: `${subject}'s inbox` }, async (uri) => ({
        contents: [{ uri: uri.href, text: `mail of ${subject}` }],
      }))
      server.registerPrompt(`${subject}_digest`, { description: `${subject}'s digest` }, async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: `digest of ${subject}` } }],
      }))
      const mine = (value: string) => [`${subject}-news`, `${subject}-sport`].filter((v) => v.startsWith(value))
      server.registerResource(
        'notes',
        new ResourceTemplate(`private://${subject}/notes/{n}`, { list: undefined, complete: { n: mine } }),
        { description: `${subject}'s notes` },
        async (uri, { n }) => ({ contents: [{ uri: uri.href, text: `note ${String(n)} of ${subject}` }] }),
      )
      server.registerPrompt(
        `${subject}_brief`,
        { description: `${subject}'s brief on a topic`, argsSchema: { topic: completable(z.string(), mine) } },
        async ({ topic }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `brief of ${subject} on ${topic}` } }] }),
      )
      server.server.registerCapabilities({ resources: { subscribe: true } })
      // Per session, as a real server holds them: a new session holds none until they are sent again.
      const subscribed = new Set<string>()
      server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        subscribed.add(request.params.uri)
        return {}
      })
      server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        subscribed.delete(request.params.uri)
        return {}
      })
      server.registerTool(
        'add_note',
        { description: "Add the person's resource private://<subject>/extra and prompt <subject>_extra (their lists change)." },
        async () => {
          server.registerResource('extra', `private://${subject}/extra`, {}, async (uri) => ({ contents: [{ uri: uri.href, text: `extra of ${subject}` }] }))
          server.registerPrompt(`${subject}_extra`, {}, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: `extra of ${subject}` } }] }))
          return { content: [{ type: 'text', text: 'added' }] }
        },
      )
      server.registerTool('touch', { description: "Send an update of the person's inbox, if this session is subscribed to it." }, async () => {
        const uri = `private://${subject}/inbox`
        if (!subscribed.has(uri)) return { content: [{ type: 'text', text: 'not subscribed' }] }
        await server.server.sendResourceUpdated({ uri })
        return { content: [{ type: 'text', text: 'sent' }] }
      })
    }
    server.registerTool('whoami', { description: 'Say whose token the call came with.', annotations: { readOnlyHint: true } }, async (extra) => {
      const seen = { subject: extra.authInfo?.extra?.subject, scopes: extra.authInfo?.scopes ?? [] }
      return { content: [{ type: 'text', text: JSON.stringify(seen) }], structuredContent: seen }
    })
    server.registerTool(
      'echo_token',
      { description: 'Echo the bearer token back (a careless server).', annotations: { readOnlyHint: true } },
      async (extra) => ({ content: [{ type: 'text', text: `your token is ${extra.authInfo?.token}` }] }),
    )
    return server
  }

  app.all('/mcp', bearer, async (req, res) => {
    const auth = (req as unknown as { auth: AuthInfo }).auth
    const subject = String(auth.extra?.subject)
    const id = req.headers['mcp-session-id']
    const known = typeof id === 'string' ? transports.get(id) : undefined
    if (known) {
      // A session belongs to the person whose token opened it.
      if (known.subject !== subject) return void res.status(403).json({ error: 'this session belongs to someone else' })
      return known.transport.handleRequest(req, res, req.body)
    }
    if (typeof id === 'string') return void res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null })
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void transports.set(sessionId, { transport, subject }),
    })
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId)
    }
    await mcpServer(subject).connect(transport)
    await transport.handleRequest(req, res, req.body)
  })

  return {
    url,
    refuse: (subject) => {
      for (const token of seen.get(subject) ?? []) refused.add(token)
    },
    sessions: () => [...transports.values()].map((t) => t.subject),
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.transport.close().catch(() => {})))
      await new Promise<void>((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
    },
  }
}
