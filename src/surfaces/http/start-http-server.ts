import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Skillplane } from '../../agents/index.js'
import { createHttpApp } from './create-http-app.js'
import { originRules } from './middleware/check-origin.js'
import { McpHttpSessions } from '../mcp/index.js'
import { CONNECT_PATH } from '../../sources/edge/index.js'
import { PlaneMetrics, startMetricsServer } from './metrics/index.js'

const KEEP_ALIVE_MS = 65_000
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

export interface HttpServer {
  url: string
  port: number
  /** Where `/metrics` is served without a key, when `metrics.listen` is set. */
  metricsUrl: string | null
  close(): Promise<void>
}

/** Listen on host:port (port 0 picks a free one); resolves once the socket is bound. */
export async function startHttpServer(plane: Skillplane, options: { host: string; port: number }): Promise<HttpServer> {
  const mcp = new McpHttpSessions(plane)
  const metrics = plane.config.metrics.enabled ? new PlaneMetrics(plane, mcp) : undefined
  let listenUrl = ''
  const app = createHttpApp(plane, mcp, { bindHost: options.host, metrics, listenUrl: () => listenUrl })
  const listen = metrics && plane.config.metrics.listen
  const metricsServer = listen
    ? await startMetricsServer(metrics, listen, plane.logger).catch(async (error: unknown) => {
        await mcp.close()
        throw error
      })
    : null
  if (plane.config.auth.oidc && !plane.config.http.publicUrl && !LOOPBACK.has(options.host)) {
    plane.logger.warn(
      { host: options.host },
      'auth.oidc without http.publicUrl: access tokens must name the address this server listens on; set http.publicUrl to the URL clients use',
    )
  }
  if (originRules(plane.config.http, options.host).hosts === null) {
    plane.logger.warn({ host: options.host }, "/mcp answers to this host's addresses only, no DNS name: list the names clients use in http.allowedHosts")
  }
  // Upgraded sockets would hold close() open: closing the server ends them (their edges reconnect elsewhere).
  const tunnels = new Set<Duplex>()
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      void mcp.close()
      void metricsServer?.close()
      reject(error)
    }
    const server: ServerType = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, (info: AddressInfo) => {
      server.off('error', onError)
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
      listenUrl = `http://${host}:${info.port}`
      plane.oauth.served(listenUrl).catch((error: unknown) => plane.logger.warn({ err: error }, 'could not record the address this server listens at'))
      resolve({
        url: listenUrl,
        port: info.port,
        metricsUrl: metricsServer?.url ?? null,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            void metricsServer?.close()
            for (const socket of tunnels) socket.destroy()
            // Open MCP event streams would hold close() open too.
            void mcp.close()
            // Idle keep-alive sockets would hold close() open, and so would those of requests still
            // answering once they go idle: those now close as soon as their answer is sent.
            if ('closeIdleConnections' in server) {
              server.keepAliveTimeout = 1
              server.closeIdleConnections()
            }
          }),
      })
    })
    server.once('error', onError)
    // Edges dial in over WebSocket; no other path upgrades.
    server.on('upgrade', (request, socket, head) => {
      if (new URL(request.url ?? '/', 'http://x').pathname !== CONNECT_PATH) {
        return socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      }
      tunnels.add(socket)
      socket.once('close', () => tunnels.delete(socket))
      plane.sources.edges.handleUpgrade(request, socket, head)
    })
    // Clients and proxies keep idle connections for up to a minute; closing them sooner (Node's 5 s)
    // races a client reusing one, which then fails with "other side closed".
    if ('keepAliveTimeout' in server) {
      server.keepAliveTimeout = KEEP_ALIVE_MS
      server.headersTimeout = KEEP_ALIVE_MS + 1_000
    }
  })
}
