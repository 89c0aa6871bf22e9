import type { Kysely } from 'kysely'
import type { Database, ManagersTable } from './database.js'

/** Live manager processes, by heartbeat: how a restarted manager tells crashed calls from a peer's. */
export class ManagerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async register(row: ManagersTable): Promise<void> {
    await this.db.insertInto('managers').values(row).execute()
  }

  async heartbeat(id: string, now: string): Promise<void> {
    await this.db.updateTable('managers').set({ heartbeat_at: now }).where('id', '=', id).execute()
  }

  heartbeatSince(cutoff: string): Promise<Array<Pick<ManagersTable, 'id' | 'hostname' | 'pid'>>> {
    return this.db.selectFrom('managers').select(['id', 'hostname', 'pid']).where('heartbeat_at', '>=', cutoff).execute()
  }

  async removeStale(cutoff: string): Promise<void> {
    await this.db.deleteFrom('managers').where('heartbeat_at', '<', cutoff).execute()
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('managers').where('id', '=', id).execute()
  }
}
