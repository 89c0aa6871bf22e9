import { createServer } from 'node:net'
import { CliError } from './cli-error.js'

/**
 * Hold host:port while serve starts (config services, sources, MCP servers), so a port in use is
 * refused before any of them starts, and no other process takes it meanwhile. Port 0 holds nothing.
 */
export async function reservePort(host: string, port: number): Promise<{ release(): Promise<void> }> {
  if (port === 0) return { release: async () => {} }
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new CliError(`port ${port} on ${host} is in use (another skillplane serve?): stop that process or pick another with --port`))
      } else if (error.code === 'EACCES') {
        reject(new CliError(`port ${port} on ${host} needs privileges this user lacks: pick a port above 1023 with --port`))
      } else {
        reject(new CliError(`cannot listen on ${host}:${port}: ${error.message}`))
      }
    })
    server.listen({ host, port, exclusive: true }, resolve)
  })
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}
