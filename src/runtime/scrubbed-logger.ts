import type { Logger } from 'pino'
import { scrubText, scrubValue } from '../audit/index.js'
import type { SkillLogger } from '../skill/index.js'

/**
 * A skill's logger that blanks out the secret values of its call (its secret inputs and what
 * skillplane gave it) from messages and logged objects, errors included, before pino sees them.
 */
export function scrubbedLogger(logger: Logger, secrets: () => ReadonlySet<string>): SkillLogger {
  const level =
    (name: 'debug' | 'info' | 'warn' | 'error') =>
    (obj: object | string, msg?: string): void => {
      const known = secrets()
      if (known.size === 0) return msg === undefined ? logger[name](obj as object) : logger[name](obj as object, msg)
      const clean = typeof obj === 'string' ? scrubText(obj, known) : (scrubValue(withErrorsAsObjects(obj), known) as object)
      if (msg === undefined) logger[name](clean)
      else logger[name](clean, scrubText(String(msg), known))
    }
  return { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') }
}

// An Error's message and stack are not own enumerable properties: copied out so they are scrubbed, not dropped.
function withErrorsAsObjects(value: unknown, depth = 0): unknown {
  if (value instanceof Error)
    return { type: value.name, message: value.message, stack: value.stack, ...(withErrorsAsObjects({ ...value }, depth + 1) as object) }
  if (value === null || typeof value !== 'object' || depth > 8 || Array.isArray(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) out[key] = withErrorsAsObjects(child, depth + 1)
  return out
}
