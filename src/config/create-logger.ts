import pino, { type Logger } from 'pino'
import pretty from 'pino-pretty'
import { ConfigError } from './config-error.js'

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/**
 * skillplane's logger: the level from SKILLPLANE_LOG_LEVEL (else `fallback`), to `fd` (1 or 2);
 * readable lines on a terminal, JSON lines anywhere else (files, pipes, log collectors).
 */
export function createLogger(fallback: string, fd: 1 | 2 = 1): Logger {
  const level = process.env.SKILLPLANE_LOG_LEVEL?.trim().toLowerCase() || fallback
  if (!LEVELS.includes(level)) {
    throw new ConfigError(`SKILLPLANE_LOG_LEVEL "${process.env.SKILLPLANE_LOG_LEVEL}" is not a log level: use ${LEVELS.join(', ')}`)
  }
  const terminal = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY
  return pino({ level }, terminal ? pretty({ destination: fd, sync: true, colorize: true }) : pino.destination(fd))
}
