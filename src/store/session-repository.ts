import type { Kysely, Selectable } from 'kysely'
import type { Database, SessionsTable, SignInsTable } from './database.js'

export type SessionRow = Selectable<SessionsTable>
export type SignInRow = Selectable<SignInsTable>

export class SessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async startSignIn(row: SignInRow): Promise<void> {
    await this.db.insertInto('sign_ins').values(row).execute()
    // Sign-ins never finished go with the next one started.
    await this.db.deleteFrom('sign_ins').where('expires_at', '<=', row.created_at).execute()
  }

  /** Take a sign-in in progress, once: a second callback with the same state finds nothing (both dialects delete atomically). */
  takeSignIn(stateHash: string, now: string): Promise<SignInRow | undefined> {
    return this.db.deleteFrom('sign_ins').where('state_hash', '=', stateHash).where('expires_at', '>', now).returningAll().executeTakeFirst()
  }

  async insert(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute()
  }

  /** The live session of a token's hash. */
  findLive(tokenHash: string, now: string): Promise<SessionRow | undefined> {
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst()
  }

  async revoke(tokenHash: string, now: string): Promise<void> {
    await this.db.updateTable('sessions').set({ revoked_at: now }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).execute()
  }

  /** End every session of a user (disabled); how many were live. */
  async revokeForUser(userId: string, now: string): Promise<number> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows)
  }

  /** Delete sessions that ended more than a day before `before`. */
  async prune(before: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', before).execute()
  }
}
