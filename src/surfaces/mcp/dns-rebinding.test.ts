import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import type { SkillplaneConfig } from '../../config/define-config.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'
import { createHttpApp } from '../http/create-http-app.js'

const [sqlite] = databases
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

/** POST /mcp over a real socket with exactly these headers (fetch would not let Host be set). */
function post(server: HttpServer, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/mcp`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      },
    )
    req.on('error', reject)
    req.end(INITIALIZE)
  })
}

describe('/mcp DNS-rebinding protection', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function serve(config: SkillplaneConfig = {}) {
    const plane = await openTestPlane(sqlite!, config)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    return { plane, server, key, port: server.port }
  }

  it('answers only to loopback names when bound to 127.0.0.1, and refuses pages of other origins', async () => {
    const { server, key, port } = await serve()
    const auth = { authorization: `Bearer ${key}` }
    // A rebinding page reaches 127.0.0.1 under its own name: refused before the key is even looked at.
    const rebound = await post(server, { host: `attacker.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body)).toMatchObject({
      ok: false,
      error: { code: 'denied', message: `Host "attacker.example:${port}" is not a name this server answers to on /mcp: list it in http.allowedHosts` },
    })
    expect((await post(server, { ...auth, host: 'attacker.example' })).status).toBe(403)
    const foreign = await post(server, { ...auth, host: `127.0.0.1:${port}`, origin: 'https://attacker.example' })
    expect(foreign.status).toBe(403)
    expect(JSON.parse(foreign.body).error.message).toBe('requests from origin "https://attacker.example" are refused on /mcp (http.allowedOrigins)')
    expect((await post(server, { ...auth, host: `127.0.0.1:${port}`, origin: 'null' })).status).toBe(403)
    // Loopback names on any port, with or without a local page's origin, reach the key check and MCP.
    expect((await post(server, { host: `localhost:${port}` })).status).toBe(401)
    expect((await post(server, { ...auth, host: `localhost:${port}`, origin: 'http://localhost:5173' })).status).toBe(200)
    expect((await post(server, { ...auth, host: `[::1]:${port}` })).status).toBe(200)
    // The real SDK client, by address and by name.
    for (const base of [server.url, `http://localhost:${port}`]) {
      const client = new Client({ name: 'test-client', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth } }))
      cleanup.push(() => client.close())
      expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    }
  })

  it('answers to the configured names and origins instead, and says what to set on a bad config', async () => {
    const { server, key, port } = await serve({ http: { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://Console.example.com:443'] } })
    const auth = { authorization: `Bearer ${key}` }
    expect((await post(server, { ...auth, host: `127.0.0.1:${port}` })).status).toBe(403)
    expect((await post(server, { ...auth, host: 'MCP.example.com' })).status).toBe(200)
    expect((await post(server, { ...auth, host: 'mcp.example.com', origin: 'https://console.example.com' })).status).toBe(200)
    expect((await post(server, { ...auth, host: 'mcp.example.com', origin: 'https://other.example.com' })).status).toBe(403)
    await expect(openTestPlane(sqlite!, { http: { allowedHosts: ['https://mcp.example.com'] } })).rejects.toThrow(
      /http\.allowedHosts\[0\].*a host name without port or scheme/,
    )
    await expect(openTestPlane(sqlite!, { http: { allowedOrigins: ['console.example.com'] } })).rejects.toThrow(
      /http\.allowedOrigins\[0\].*an origin such as https:\/\/app\.example\.com/,
    )
  })

  it('answers to its addresses on another interface, and to a DNS name only once it is listed', async () => {
    const open = async (config: SkillplaneConfig = {}) => {
      const plane = await openTestPlane(sqlite!, config)
      cleanup.push(() => plane.close())
      const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
      const app = createHttpApp(plane, undefined, { bindHost: '0.0.0.0' })
      return (host: string, headers: Record<string, string> = {}) =>
        app.request(`http://${host}/mcp`, {
          method: 'POST',
          headers: { host, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: INITIALIZE,
        })
    }
    const send = await open()
    expect((await send('192.0.2.10:7420')).status).toBe(200)
    expect((await send('[2001:db8::1]:7420')).status).toBe(200)
    // A rebinding page sends its own name as Host and Origin: refused, with the setting to change.
    const rebound = await send('attacker.example:7420', { origin: 'http://attacker.example:7420' })
    expect(rebound.status).toBe(403)
    expect(await rebound.json()).toMatchObject({
      error: { message: 'Host "attacker.example:7420" is not a name this server answers to on /mcp: list it in http.allowedHosts' },
    })
    expect((await send('192.0.2.10:7420', { origin: 'http://attacker.example' })).status).toBe(403)
    const listed = await open({ http: { allowedHosts: ['skillplane.internal'] } })
    expect((await listed('skillplane.internal:7420', { origin: 'http://skillplane.internal:7420' })).status).toBe(200)
    expect((await listed('192.0.2.10:7420')).status).toBe(403)
  })
})
