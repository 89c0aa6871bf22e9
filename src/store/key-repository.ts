import type { Kysely, Selectable } from 'kysely'
import type { ApiKeysTable, Database } from './database.js'

export type KeyRow = Selectable<ApiKeysTable>
/** A key with what its user says about it. */
export type KeyWithUser = KeyRow & { user_name: string; user_display_name: string | null; user_disabled_at: string | null }

export class KeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: KeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute()
  }

  /** The unrevoked key with this hash whose user is not disabled. */
  findActiveByHash(hash: string): Promise<KeyWithUser | undefined> {
    return this.#withUser()
      .where('api_keys.key_hash', '=', hash)
      .where('api_keys.revoked_at', 'is', null)
      .where('users.disabled_at', 'is', null)
      .executeTakeFirst()
  }

  list(): Promise<KeyWithUser[]> {
    return this.#withUser().orderBy('api_keys.created_at').execute()
  }

  async revoke(idOrName: string, now: string): Promise<number> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows)
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  #withUser() {
    return this.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .selectAll('api_keys')
      .select(['users.name as user_name', 'users.display_name as user_display_name', 'users.disabled_at as user_disabled_at'])
  }
}
