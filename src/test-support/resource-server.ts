import { createServer, type IncomingMessage, type Server } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createRemoteJWKSet, jwtVerify } from 'jose'

/** What the resource server received, with whom it took the token to be (null when it refused it). */
export interface ResourceRequest {
  method: string
  url: string
  authorization: string | undefined
  subject: string | null
}

export interface TestResourceServer {
  url: string
  /** Its OpenAPI document: `GET /me` needs the scope `issues:read`, `POST /issues` `issues:write`; `GET /status` is public. */
  spec: object
  received: ResourceRequest[]
  close(): Promise<void>
}

/**
 * An issue tracker's API on 127.0.0.1 that accepts only access tokens a test authorization server
 * (oidc-provider) issued for `audience`: JWTs verified against the JWKS its metadata names (issuer,
 * signature, expiry, audience, scope). It echoes the Authorization header back, as careless
 * services do, so tests can check that it is scrubbed.
 */
export async function startResourceServer(issuer: string, audience: string): Promise<TestResourceServer> {
  const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string }
  const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri))
  const received: ResourceRequest[] = []
  const server: Server = createServer((req, res) => {
    handle(req).then(
      ({ status, body }) =>
        res
          .writeHead(status, { 'content-type': 'application/json', ...(status === 401 && { 'www-authenticate': 'Bearer error="invalid_token"' }) })
          .end(JSON.stringify(body)),
      (error: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message })),
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const spec = openApiDocument(url, issuer)

  async function handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    for await (const _ of req);
    const path = new URL(req.url!, url).pathname
    const entry: ResourceRequest = { method: req.method!, url: req.url!, authorization: req.headers.authorization, subject: null }
    received.push(entry)
    if (path === '/openapi.json') return { status: 200, body: spec }
    if (path === '/status') return { status: 200, body: { status: 'ok' } }
    const needs = path === '/me' && req.method === 'GET' ? 'issues:read' : path === '/issues' && req.method === 'POST' ? 'issues:write' : null
    if (!needs) return { status: 404, body: { error: 'no such path' } }
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1]
    if (!token) return { status: 401, body: { error: 'a bearer token is required' } }
    let claims
    try {
      claims = (await jwtVerify(token, jwks, { issuer, audience })).payload
    } catch (error) {
      return { status: 401, body: { error: `the token was refused: ${(error as Error).message}` } }
    }
    entry.subject = String(claims.sub)
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : []
    if (!scopes.includes(needs)) return { status: 403, body: { error: `the token lacks the scope ${needs}` } }
    // The echo: the whole header, token included.
    return { status: 200, body: { subject: claims.sub, scopes, authorization: req.headers.authorization } }
  }

  return {
    url,
    spec,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function openApiDocument(url: string, issuer: string): object {
  const response = { '200': { description: 'who the token is for, and the Authorization header it came with' } }
  const scopes = { 'issues:read': 'read issues', 'issues:write': 'open issues' }
  return {
    openapi: '3.1.0',
    info: { title: 'Issues', version: '1.0.0' },
    servers: [{ url }],
    security: [{ tracker: ['issues:read'] }],
    components: {
      securitySchemes: {
        tracker: { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, scopes } } },
      },
    },
    paths: {
      '/me': { get: { operationId: 'whoami', summary: 'Who the token is for', responses: response } },
      '/issues': { post: { operationId: 'open_issue', summary: 'Open an issue', security: [{ tracker: ['issues:write'] }], responses: response } },
      '/status': { get: { operationId: 'status', summary: 'Service status', security: [], responses: { '200': { description: 'ok' } } } },
    },
  }
}
