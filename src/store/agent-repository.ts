import type { Kysely, Selectable } from 'kysely'
import type { AgentsTable, BindingsTable, Database } from './database.js'

export type AgentRow = Omit<Selectable<AgentsTable>, 'change_seq'>
export type BindingRow = Omit<Selectable<BindingsTable>, 'change_seq'>

export class AgentRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(): Promise<AgentRow[]> {
    return this.db.selectFrom('agents').selectAll().orderBy('name').execute()
  }

  async upsert(row: AgentRow): Promise<void> {
    await this.db
      .insertInto('agents')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          name: row.name,
          aliases: row.aliases,
          description: row.description,
          declared: row.declared,
          updated_at: row.updated_at,
        }),
      )
      .execute()
  }

  async setDeclared(id: string, declared: boolean, now: string): Promise<void> {
    await this.db
      .updateTable('agents')
      .set({ declared: declared ? 1 : 0, updated_at: now })
      .where('id', '=', id)
      .execute()
  }

  listBindings(): Promise<BindingRow[]> {
    return this.db.selectFrom('bindings').selectAll().orderBy('agent_id').orderBy('skill_key').execute()
  }

  async bind(agentId: string, skillKey: string, now: string): Promise<void> {
    await this.db
      .insertInto('bindings')
      .values({ agent_id: agentId, skill_key: skillKey, created_at: now })
      .onConflict((oc) => oc.columns(['agent_id', 'skill_key']).doNothing())
      .execute()
  }

  async unbind(agentId: string, skillKey: string): Promise<void> {
    await this.db.deleteFrom('bindings').where('agent_id', '=', agentId).where('skill_key', '=', skillKey).execute()
  }
}
