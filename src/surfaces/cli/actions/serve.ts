import { type GlobalOptions, openPlane } from '../open-plane.js'
import { startHttpServer, type HttpServer } from '../../http/index.js'
import { printSyncReport } from './sync.js'
import { CliError } from '../cli-error.js'
import { createModel } from '../../../agents/index.js'
import { startLocalEdge, type LocalEdge } from '../local-edge.js'
import { startOtlpTracing } from '../otlp-tracing.js'
import { reservePort } from '../reserve-port.js'

export async function serve(options: GlobalOptions & { port: number; host: string; edge?: string }): Promise<void> {
  // First of all: a port in use is refused before a service, source or MCP server starts.
  const port = await reservePort(options.host, options.port)
  // Registered before the plane opens, so the runs it resumes are traced too.
  const tracing = startOtlpTracing()
  const plane = await openPlane(options, { sync: true, logLevel: 'info', connectMcp: true, resumeRuns: true, dailySweeps: true, services: true }).catch(
    async (error: unknown) => {
      await port.release()
      await tracing?.shutdown()
      throw error
    },
  )
  if (tracing) plane.logger.info('exporting traces over OTLP')
  // A skill's stray promise must not take the control plane down with it.
  process.on('unhandledRejection', (error) => plane.logger.error({ err: error }, 'unhandled rejection (a skill left a promise unhandled)'))
  let server: HttpServer | undefined
  let edge: LocalEdge | undefined
  try {
    if (plane.status.startupSync) printSyncReport(plane.status.startupSync, { quietWhenEmpty: true })
    // Say now which agents can't run (a missing API key), not at their first run.
    for (const agent of plane.config.agents.filter((a) => a.model)) {
      try {
        createModel(agent)
      } catch (error) {
        plane.logger.warn(`${(error as Error).message}; its runs will be refused until it is set`)
      }
    }
    await port.release()
    try {
      server = await startHttpServer(plane, { host: options.host, port: options.port })
    } catch (error) {
      // The commonest first-run failure: say what to do about it.
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new CliError(`port ${options.port} on ${options.host} is in use (another skillplane serve?): stop that process or pick another with --port`)
      }
      throw error
    }
    // Created only once the port is bound, so a failed start never swallows the one-time key.
    const admin = (await plane.people.keys.count()) === 0 ? await plane.people.keys.create({ name: 'admin', role: 'admin' }, plane.now()) : null
    // Each edge's line counts the skills it offers; this is the manager's own, as GET /api/health counts them.
    console.log(`skillplane ${plane.skills.count} skills on ${plane.status.dialect} (${plane.status.location})`)
    console.log(`console  ${server.url}/`)
    console.log(`api      ${server.url}/api/skills`)
    if (server.metricsUrl) console.log(`metrics  ${server.metricsUrl}`)
    if (admin) {
      console.log(`admin key (shown once; store it now): ${admin.key}`)
      console.log(`try: curl -H "Authorization: Bearer ${admin.key}" ${server.url}/api/skills`)
    } else {
      console.log('keys exist already; make another with: skillplane keys create --name NAME --role admin')
    }
    if (options.edge) {
      const name = options.edge
      edge = await startLocalEdge(plane, server.url, name, options)
      const online = () => {
        const offered = plane.sources.edges.get(name)?.skills.length ?? 0
        console.log(`edge     ${name} (this host): online, offering ${offered} host skills; host skills take edgeId "${name}"`)
      }
      // The demo's first host-skill call should find it connected: wait a little for it, then say when it comes.
      const waited = new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 10_000).unref())
      if ((await Promise.race([edge.online, waited])) === true) online()
      else {
        console.log(`edge     ${name} (this host): not online yet; a line here says when it is`)
        void edge.online.then((up) => up && online())
      }
    }
  } catch (error) {
    await port.release()
    edge?.stop()
    await server?.close()
    await plane.close()
    await tracing?.shutdown()
    throw error
  }
  const stop = async (signal: string) => {
    plane.logger.info({ signal }, 'shutting down')
    edge?.stop()
    const closed = server?.close()
    await plane.close()
    await closed
    // The spans of the last calls are still batched.
    await tracing?.shutdown().catch((error: unknown) => plane.logger.warn({ err: error }, 'the last spans could not be exported'))
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}
