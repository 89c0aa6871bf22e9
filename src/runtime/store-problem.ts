import { databaseUnavailable } from '../store/index.js'

/** What to tell a caller about a failed store operation: never the database's address or files. */
export function storeProblem(error: unknown): string {
  const down = databaseUnavailable(error)
  return down ? `the database is unavailable: ${down}; retry in a few seconds` : 'the database failed (see the server log)'
}
