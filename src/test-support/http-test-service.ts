import { createServer, type IncomingMessage, type Server } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'

export const TEST_TOKEN = 'inv-secret-token-7c41f0e2'

/** What the service received, for assertions. */
export interface Received {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

/**
 * The inventory service the OpenAPI fixture describes, on 127.0.0.1: it serves the spec itself at
 * /api/openapi.json, checks the bearer token on non-public paths, and misbehaves on request.
 */
export async function startTestService(spec: string): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = []
  const items = new Map<string, { name: string; quantity: number }>([['bolt', { name: 'bolt', quantity: 40 }]])
  const server: Server = createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += String(chunk)
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body })
    const url = new URL(req.url!, 'http://x')
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(value))
    }
    const path = url.pathname.replace(/^\/api/, '')
    if (path === '/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(spec)
    if (path === '/health') return json(200, { status: 'ok' })
    if (path === '/motd') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from the depot')
    if (path.startsWith('/echo'))
      return json(200, {
        method: req.method,
        path: url.pathname,
        raw: req.url,
        query: [...url.searchParams],
        body: body ? JSON.parse(body) : null,
        auth: req.headers.authorization ?? null,
        key: req.headers['x-api-key'] ?? null,
      })
    if (req.headers.authorization !== `Bearer ${TEST_TOKEN}`) return json(401, { error: 'bad or missing token' })
    if (path === '/whoami') return json(200, { authorization: req.headers.authorization, trace: req.headers['x-trace'] ?? null })
    if (path === '/fail') return json(500, { error: `token ${TEST_TOKEN} is not allowed here` })
    // The token echoed right where an error body is cut.
    if (path === '/fail-long') return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`${'x'.repeat(2040)}${TEST_TOKEN} was refused`)
    if (path === '/elsewhere') return void res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/api/items` }).end()
    if (path === '/hop') return void res.writeHead(302, { location: '/api/items' }).end()
    if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' })
      // Chunked, no length: the cap has to count while reading.
      for (let i = 0; i < 64 && !res.destroyed; i++) res.write(`${'x'.repeat(1023)}\n`)
      return void res.end()
    }
    if (path === '/slow') return void setTimeout(() => json(200, { late: true }), 5_000).unref()
    if (path === '/items' && req.method === 'GET') {
      const list = [...items.values()].slice(0, Number(url.searchParams.get('limit') ?? 100))
      return json(200, { tag: url.searchParams.get('tag'), items: list, trace: req.headers['x-trace'] ?? null })
    }
    if (path === '/items' && req.method === 'POST') {
      const item = JSON.parse(body) as { name: string; quantity: number }
      items.set(item.name, item)
      return json(201, { created: item, contentType: req.headers['content-type'] })
    }
    const match = /^\/items\/([^/]+)$/.exec(path)
    if (match) {
      const id = decodeURIComponent(match[1]!)
      if (!items.has(id)) return json(404, { error: `no item ${id}` })
      if (req.method === 'DELETE') {
        items.delete(id)
        return void res.writeHead(204).end()
      }
      return json(200, items.get(id))
    }
    json(404, { error: 'no such path' })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
