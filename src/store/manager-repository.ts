import type { Kysely } from 'kysely'
import type { Database, ManagersTable } from './database.js'

/** Live manager processes, by heartbeat: how a restarted manager tells crashed calls from a peer's. */
export class ManagerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** An upsert: a peer that wrongly swept this manager's row (a stall, a clock jump) sees it again. */
  async heartbeat(row: ManagersTable): Promise<void> {
    await this.db
      .insertInto('managers')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: row.heartbeat_at }))
      .execute()
  }

  heartbeatSince(cutoff: string): Promise<Array<Pick<ManagersTable, 'id' | 'hostname' | 'pid'>>> {
    return this.db.selectFrom('managers').select(['id', 'hostname', 'pid']).where('heartbeat_at', '>=', cutoff).execute()
  }

  /** The manager's row while its heartbeat is fresh. */
  findAlive(id: string, cutoff: string): Promise<Pick<ManagersTable, 'id' | 'hostname' | 'pid'> | undefined> {
    return this.db.selectFrom('managers').select(['id', 'hostname', 'pid']).where('id', '=', id).where('heartbeat_at', '>=', cutoff).executeTakeFirst()
  }

  async removeStale(cutoff: string): Promise<void> {
    await this.db.deleteFrom('managers').where('heartbeat_at', '<', cutoff).execute()
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('managers').where('id', '=', id).execute()
  }
}
