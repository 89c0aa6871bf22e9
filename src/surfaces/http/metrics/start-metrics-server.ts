import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import type { PlaneMetrics } from './plane-metrics.js'

export interface MetricsServer {
  url: string
  close(): Promise<void>
}

/** `/metrics` alone, without a key, on its own address (`metrics.listen`), for a scraper on a private network. */
export function startMetricsServer(metrics: PlaneMetrics, listen: string, logger: Logger): Promise<MetricsServer> {
  const split = listen.lastIndexOf(':')
  const host = listen.slice(0, split).replace(/^\[(.*)\]$/, '$1')
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || new URL(request.url ?? '/', 'http://x').pathname !== '/metrics') {
      return response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n')
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics scrape failed')
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected; see the server log\n')
      },
    )
  })
  return new Promise((resolve, reject) => {
    // Named, so a busy metrics port is not mistaken for the main one.
    const onError = (error: Error) => reject(new Error(`metrics.listen ${listen} can't be used: ${error.message}`))
    server.once('error', onError)
    server.listen(Number(listen.slice(split + 1)), host, () => {
      server.off('error', onError)
      const { address, family, port } = server.address() as AddressInfo
      resolve({
        url: `http://${family === 'IPv6' ? `[${address}]` : address}:${port}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}
