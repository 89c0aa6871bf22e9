// Errors that mean "the database can't be reached or can't take writes right now", not "this
// request is wrong": connection failures, a server shutting down or refusing connections, and
// SQLite's busy, I/O and disk-full errors. Codes are Node's, PostgreSQL's SQLSTATEs and SQLite's.
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
const PG_STATES = /^(08\d\d\d|57P0[123]|53300|53400)$/
const SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)/
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'the database system is',
]

/**
 * A short reason when `error` means the database is unavailable (retrying later may work), else
 * null. The reason names the condition, never the server's address or file paths.
 */
export function databaseUnavailable(error: unknown, depth = 0): string | null {
  if (typeof error !== 'object' || error === null || depth > 3) return null
  const { code, message, errors, cause } = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown }
  if (typeof code === 'string') {
    if (NETWORK.has(code)) return `it can't be reached (${code})`
    if (PG_STATES.test(code)) return `it refuses connections or is shutting down (${code})`
    if (SQLITE.test(code)) return `it can't take the request (${code})`
  }
  if (typeof message === 'string' && PG_MESSAGES.some((m) => message.includes(m))) return 'the connection to it was lost'
  // Connecting to a host with several addresses fails with an AggregateError of each attempt.
  if (Array.isArray(errors)) for (const inner of errors) if (databaseUnavailable(inner, depth + 1)) return databaseUnavailable(inner, depth + 1)
  return databaseUnavailable(cause, depth + 1)
}
