import type { Kysely, Selectable } from 'kysely'
import type { Database, DiscoveryExamplesTable, SkillEmbeddingsTable, SkillRelationsTable } from './database.js'

export type ExampleRow = Selectable<DiscoveryExamplesTable>
export type RelationRow = Selectable<SkillRelationsTable>
export type EmbeddingRow = Selectable<SkillEmbeddingsTable>

// Five columns a row: SQLite takes 32,766 parameters a statement, PostgreSQL 65,535.
const EXAMPLES_PER_STATEMENT = 1_000

/** Discovery's evidence: usage examples, learned relations and skill embeddings. */
export class DiscoveryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Store examples (an id already stored is left alone), in statements small enough for either database's bound-parameter limit. */
  async addExamples(rows: ExampleRow[]): Promise<void> {
    if (rows.length === 0) return
    await this.db.transaction().execute(async (tx) => {
      for (let i = 0; i < rows.length; i += EXAMPLES_PER_STATEMENT) {
        await tx
          .insertInto('discovery_examples')
          .values(rows.slice(i, i + EXAMPLES_PER_STATEMENT))
          .onConflict((oc) => oc.column('id').doNothing())
          .execute()
      }
    })
  }

  /** Examples recorded at or after `since`, but for those `exceptManager` learned (it knows them). */
  examplesSince(since: string, exceptManager?: string): Promise<ExampleRow[]> {
    return this.db
      .selectFrom('discovery_examples')
      .selectAll()
      .where('created_at', '>=', since)
      .$if(exceptManager !== undefined, (q) => q.where((eb) => eb.or([eb('manager_id', 'is', null), eb('manager_id', '<>', exceptManager!)])))
      .orderBy('created_at')
      .execute()
  }

  /** Delete examples recorded before `before`: they weigh nothing any more. */
  async deleteExamplesBefore(before: string): Promise<void> {
    await this.db.deleteFrom('discovery_examples').where('created_at', '<', before).execute()
  }

  /** Count one more time `to` followed `from`. */
  async addRelations(pairs: Array<{ from: string; to: string }>, now: string): Promise<void> {
    for (const { from, to } of pairs) {
      await this.db
        .insertInto('skill_relations')
        .values({ from_key: from, to_key: to, weight: 1, updated_at: now })
        .onConflict((oc) => oc.columns(['from_key', 'to_key']).doUpdateSet((eb) => ({ weight: eb('skill_relations.weight', '+', 1), updated_at: now })))
        .execute()
    }
  }

  /** Every learned relation, or those counted at or after `since`. */
  relations(since?: string): Promise<RelationRow[]> {
    return this.db
      .selectFrom('skill_relations')
      .selectAll()
      .$if(since !== undefined, (q) => q.where('updated_at', '>=', since!))
      .execute()
  }

  embeddings(model: string): Promise<EmbeddingRow[]> {
    return this.db.selectFrom('skill_embeddings').selectAll().where('model', '=', model).execute()
  }

  async putEmbeddings(rows: EmbeddingRow[]): Promise<void> {
    for (const row of rows) {
      await this.db
        .insertInto('skill_embeddings')
        .values(row)
        .onConflict((oc) => oc.columns(['skill_key', 'model']).doUpdateSet({ text_hash: row.text_hash, vector: row.vector }))
        .execute()
    }
  }
}
