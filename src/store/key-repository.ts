import type { Kysely, Selectable } from 'kysely'
import type { ApiKeysTable, Database } from './database.js'

export type KeyRow = Selectable<ApiKeysTable>

export class KeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: KeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute()
  }

  findActiveByHash(hash: string): Promise<KeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst()
  }

  list(): Promise<KeyRow[]> {
    return this.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute()
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
}
