import type { Kysely } from 'kysely'
import type { Database } from './database.js'
import type { CatalogRow } from './catalog-repository.js'
import type { AgentRow, BindingRow } from './agent-repository.js'

/** The version of skills, agents and bindings a reader has seen: where its next read starts. */
export interface CatalogVersions {
  skills: number
  agents: number
  bindings: number
}

/** Rows written and rows deleted since the versions asked for (every row when none were given). */
export interface CatalogChanges {
  versions: CatalogVersions
  /** True when these are every row: the reader replaces what it holds. */
  whole: boolean
  skills: CatalogRow[]
  agents: AgentRow[]
  bindings: BindingRow[]
  deleted: { skills: string[]; agents: string[]; bindings: Array<{ agent_id: string; skill_key: string }> }
}

/** Reads of the catalog by version (migration 0019): a manager loads only what changed since its last look. */
export class CatalogChangeRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * One snapshot (repeatable read on PostgreSQL, a read transaction on SQLite): the versions and
   * the rows agree, so every row stamped at or below the versions returned is among the rows read,
   * and the next read from those versions misses nothing.
   */
  read(since?: CatalogVersions): Promise<CatalogChanges> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const rows = await trx.selectFrom('change_versions').select(['name', 'version']).where('name', 'in', ['skills', 'agents', 'bindings']).execute()
        const version = (name: string) => Number(rows.find((r) => r.name === name)?.version ?? 0)
        const versions = { skills: version('skills'), agents: version('agents'), bindings: version('bindings') }
        // A first read takes every row (those written before migration 0019 carry 0); later ones only what is newer.
        // Unordered: an order by the primary key would have SQLite walk that index instead of change_seq's.
        const [skills, agents, bindings, deletions] = await Promise.all([
          trx
            .selectFrom('skills')
            .selectAll()
            .$if(since !== undefined, (q) => q.where('change_seq', '>', since!.skills))
            .execute(),
          trx
            .selectFrom('agents')
            .selectAll()
            .$if(since !== undefined, (q) => q.where('change_seq', '>', since!.agents))
            .execute(),
          trx
            .selectFrom('bindings')
            .selectAll()
            .$if(since !== undefined, (q) => q.where('change_seq', '>', since!.bindings))
            .execute(),
          since
            ? trx
                .selectFrom('catalog_deletions')
                .select(['table_name', 'id', 'skill_key'])
                .where((eb) =>
                  eb.or(
                    (['skills', 'agents', 'bindings'] as const).map((table) => eb.and([eb('table_name', '=', table), eb('change_seq', '>', since[table])])),
                  ),
                )
                .execute()
            : [],
        ])
        const deletedFrom = (table: string) => deletions.filter((d) => d.table_name === table)
        return {
          versions,
          whole: since === undefined,
          skills,
          agents,
          bindings,
          deleted: {
            skills: deletedFrom('skills').map((d) => d.id),
            agents: deletedFrom('agents').map((d) => d.id),
            bindings: deletedFrom('bindings').map((d) => ({ agent_id: d.id, skill_key: d.skill_key })),
          },
        }
      })
  }
}
