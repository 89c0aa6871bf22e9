import type { Kysely, Selectable, Updateable } from 'kysely'
import type { Database, SkillsTable } from './database.js'

/** A catalog row as the catalog holds it; its change_seq is the store's business (CatalogChangeRepository). */
export type CatalogRow = Omit<Selectable<SkillsTable>, 'change_seq'>

export class CatalogRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(): Promise<CatalogRow[]> {
    return this.db.selectFrom('skills').selectAll().orderBy('key').execute()
  }

  get(key: string): Promise<CatalogRow | undefined> {
    return this.db.selectFrom('skills').selectAll().where('key', '=', key).executeTakeFirst()
  }

  async insert(row: CatalogRow): Promise<void> {
    // Another manager may have synced the same row a moment ago: first writer wins.
    await this.db
      .insertInto('skills')
      .values(row)
      .onConflict((oc) => oc.column('key').doNothing())
      .execute()
  }

  /** Delete a row and every binding to it. */
  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('bindings').where('skill_key', '=', key).execute()
    await this.db.deleteFrom('skills').where('key', '=', key).execute()
  }

  async update(key: string, changes: Updateable<SkillsTable>): Promise<void> {
    await this.db.updateTable('skills').set(changes).where('key', '=', key).execute()
  }
}
