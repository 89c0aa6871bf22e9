// The demo's "depot" service: an inventory API on 127.0.0.1 for the HTTP skill `service_status`
// and the OpenAPI source `inventory` (openapi/inventory.yaml). Items live in memory.
// GET /status is public; /items needs `Authorization: Bearer demo-token`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

export const DEMO_TOKEN = 'demo-token'

/**
 * Listen on 127.0.0.1:port; what it returns stops it. When the port is taken (another demo server,
 * or `skillplane mcp` beside `npm start`), the running service is used and nothing is started.
 */
export async function startDemoApi(port: number): Promise<() => Promise<void>> {
  interface Item {
    sku: string
    name: string
    quantity: number
    location?: string
  }
  const items = new Map<string, Item>([
    ['bolt-m6', { sku: 'bolt-m6', name: 'Bolt M6', quantity: 40, location: 'A1' }],
    ['fan-80', { sku: 'fan-80', name: 'Case fan 80 mm', quantity: 3, location: 'B2' }],
  ])
  const server = createServer((req, res) => {
    // The service runs inside the demo manager: whatever a request does, it must not end the process.
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'the depot failed on this request' }))
    })
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = ''
    for await (const chunk of req) body += String(chunk)
    const url = new URL(req.url!, 'http://depot')
    const send = (status: number, value?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(value === undefined ? '' : JSON.stringify(value))
    }
    if (url.pathname === '/status' && req.method === 'GET') return send(200, { service: 'depot', status: 'ok', items: items.size })
    if (!url.pathname.startsWith('/items')) return send(404, { error: 'no such path' })
    if (req.headers.authorization !== `Bearer ${DEMO_TOKEN}`) return send(401, { error: 'a valid bearer token is required' })
    if (url.pathname === '/items' && req.method === 'GET') {
      const location = url.searchParams.get('location')
      return send(200, { items: [...items.values()].filter((i) => !location || i.location === location) })
    }
    if (url.pathname === '/items' && req.method === 'POST') {
      let item: Item
      try {
        item = JSON.parse(body) as Item
      } catch {
        return send(400, { error: 'the body is not JSON' })
      }
      if (items.has(item.sku)) return send(409, { error: `item ${item.sku} exists` })
      items.set(item.sku, item)
      return send(201, item)
    }
    let sku: string
    try {
      sku = decodeURIComponent(url.pathname.slice('/items/'.length))
    } catch {
      return send(400, { error: 'the item path is not valid percent-encoding' })
    }
    if (!items.has(sku)) return send(404, { error: `no item ${sku}` })
    if (req.method === 'GET') return send(200, items.get(sku))
    if (req.method === 'DELETE') {
      items.delete(sku)
      return send(204)
    }
    send(405, { error: 'method not allowed' })
  }
  const listening = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)))
    server.listen(port, '127.0.0.1', () => resolve(true))
  })
  return async () => {
    if (!listening) return
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
}
