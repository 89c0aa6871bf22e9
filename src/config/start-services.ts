import type { Logger } from 'pino'
import type { ServiceStop } from './config-schema.js'
import type { ResolvedConfig } from './resolve-config.js'
import { ConfigError } from './config-error.js'

/** The config's services, started: `stop()` stops them in reverse order and never throws. */
export interface RunningServices {
  stop(): Promise<void>
}

/**
 * Start each service in order. One that throws stops those started before it and fails the start
 * with an error naming it; a stop that throws is logged, and the others still stop.
 */
export async function startServices(services: ResolvedConfig['services'], logger: Logger): Promise<RunningServices> {
  const started: Array<{ name: string; stop: ServiceStop }> = []
  const stop = async () => {
    for (const service of started.splice(0).reverse()) {
      try {
        await service.stop()
      } catch (error) {
        logger.warn({ err: error, service: service.name }, 'a config service failed to stop')
      }
    }
  }
  for (const service of services) {
    let stopper: void | ServiceStop
    try {
      stopper = await service.start()
    } catch (error) {
      await stop()
      throw new ConfigError(`config service "${service.name}" failed to start: ${(error as Error).message ?? String(error)}`)
    }
    if (typeof stopper === 'function') started.push({ name: service.name, stop: stopper })
    logger.info({ service: service.name }, 'config service started')
  }
  return { stop }
}
