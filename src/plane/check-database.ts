import { sql, type Kysely } from 'kysely'
import { type Database, databaseUnavailable } from '../store/index.js'
import type { Logger } from 'pino'

const LATE = 'no answer within 2 s'

/** Why the database can't serve requests now, or null when a trivial query succeeds in time. */
export async function checkDatabase(db: Kysely<Database>, logger: Logger): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(LATE)), 2_000)
  })
  try {
    await Promise.race([sql`select 1`.execute(db), late])
    return null
  } catch (error) {
    const reason = databaseUnavailable(error)
    if (!reason) logger.warn({ err: error }, 'database health check failed')
    return reason ?? ((error as Error).message === LATE ? 'it gave no answer within 2 s' : 'a trivial query failed (see the server log)')
  } finally {
    clearTimeout(timer)
  }
}
