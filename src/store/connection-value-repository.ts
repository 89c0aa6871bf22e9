import { sql, type Kysely, type Selectable } from 'kysely'
import type { ConnectionValuesTable, Database } from './database.js'
import type { EventRow } from './event-repository.js'
import { StoreError } from './store-error.js'
import { sealedBinding } from './sealed-binding.js'
import type { Dialect } from './open-database.js'

export type ConnectionValueRow = Selectable<ConnectionValuesTable>
/** A stored value's identity: what it is, its name, and whose it is. */
export type ConnectionValueId = Pick<ConnectionValueRow, 'kind' | 'name' | 'scope' | 'subject'>
/** A stored value without its ciphertext: what listings and the connection state read. */
export type ConnectionValueMeta = Omit<ConnectionValueRow, 'sealed'>

export class ConnectionValueRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Every value's identity and version, never its ciphertext. */
  list(): Promise<ConnectionValueMeta[]> {
    return this.db
      .selectFrom('connection_values')
      .select(['kind', 'name', 'scope', 'subject', 'version', 'updated_at', 'updated_by'])
      .orderBy('kind')
      .orderBy('name')
      .orderBy('scope')
      .orderBy('subject')
      .execute()
  }

  /** The rows of these names that could apply to a caller, in one query. */
  candidates(kind: string, names: readonly string[], subjects: { agent: string | null; user: string | null }): Promise<ConnectionValueRow[]> {
    if (names.length === 0) return Promise.resolve([])
    return this.db
      .selectFrom('connection_values')
      .selectAll()
      .where('kind', '=', kind)
      .where('name', 'in', names)
      .where((eb) =>
        eb.or([
          eb('scope', '=', 'global'),
          ...(subjects.agent !== null ? [eb.and([eb('scope', '=', 'agent'), eb('subject', '=', subjects.agent)])] : []),
          ...(subjects.user !== null ? [eb.and([eb('scope', '=', 'user'), eb('subject', '=', subjects.user)])] : []),
        ]),
      )
      .execute()
  }

  /** Every row of a kind with its ciphertext (settings are listed with their values). */
  withValues(kind: string): Promise<ConnectionValueRow[]> {
    return this.db.selectFrom('connection_values').selectAll().where('kind', '=', kind).execute()
  }

  /**
   * Store a value, one version above the one it replaces (the old ciphertext is gone), with its
   * audit event in the same transaction; returns the new version.
   */
  async put(id: ConnectionValueId, sealed: string, updatedAt: string, updatedBy: string, event: (version: number) => EventRow): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const version = await this.#upsert(trx, id, sealed, updatedAt, updatedBy)
      await trx.insertInto('audit_events').values(event(version)).execute()
      return version
    })
  }

  async #upsert(db: Kysely<Database>, id: ConnectionValueId, sealed: string, updatedAt: string, updatedBy: string): Promise<number> {
    const row = await db
      .insertInto('connection_values')
      .values({ ...id, version: 1, sealed, updated_at: updatedAt, updated_by: updatedBy })
      .onConflict((oc) =>
        oc.columns(['kind', 'name', 'scope', 'subject']).doUpdateSet({
          // One statement, so two managers rotating at once get distinct versions.
          version: sql<number>`connection_values.version + 1`,
          sealed,
          updated_at: updatedAt,
          updated_by: updatedBy,
        }),
      )
      .returning('version')
      .executeTakeFirstOrThrow()
    return Number(row.version)
  }

  /**
   * Re-seal every stored value (`reseal` gives the new ciphertext, or null for one that doesn't
   * open and is left as it was), drop relayed edge calls (their sealed secrets and their managers
   * are gone), and move the key's fingerprint from `from` to `to` with the event: all in one
   * transaction, or none. The fingerprint moves first, so a manager starting now either shows in
   * `guard`'s look at the managers table or waits on that row and then sees the new fingerprint;
   * `guard` throws to abort. Refused (StoreError) when the fingerprint is no longer `from`.
   */
  async resealAll(
    reseal: (sealed: string, boundTo: string) => string | null,
    fingerprint: { setting: string; from: string; to: string },
    guard: (trx: Kysely<Database>) => Promise<void>,
    event: (counts: { resealed: number; unreadable: number }) => EventRow,
  ): Promise<{ resealed: number; unreadable: number }> {
    return this.db.transaction().execute(async (trx) => {
      // READ COMMITTED would miss a value committed after the read below: writers wait until the new ciphertexts are in.
      if (this.dialect === 'postgres') await sql`lock table connection_values in exclusive mode`.execute(trx)
      const moved = await trx
        .updateTable('settings')
        .set({ value: fingerprint.to })
        .where('key', '=', fingerprint.setting)
        .where('value', '=', fingerprint.from)
        .executeTakeFirst()
      if (Number(moved.numUpdatedRows) !== 1)
        throw new StoreError(
          `the ${fingerprint.setting.replaceAll('_', ' ')} is no longer ${fingerprint.from}: another rotation got there first; nothing was changed`,
        )
      await guard(trx)
      const counts = { resealed: 0, unreadable: 0 }
      for (const row of await trx.selectFrom('connection_values').selectAll().execute()) {
        const sealed = reseal(row.sealed, sealedBinding.connectionValue(row))
        if (sealed === null) {
          counts.unreadable++
          continue
        }
        await trx
          .updateTable('connection_values')
          .set({ sealed })
          .where('kind', '=', row.kind)
          .where('name', '=', row.name)
          .where('scope', '=', row.scope)
          .where('subject', '=', row.subject)
          .execute()
        counts.resealed++
      }
      for (const row of await trx.selectFrom('oauth_connections').select(['provider', 'subject', 'sealed']).execute()) {
        const sealed = reseal(row.sealed, sealedBinding.oauthConnection(row.provider, row.subject))
        if (sealed === null) {
          counts.unreadable++
          continue
        }
        await trx.updateTable('oauth_connections').set({ sealed }).where('provider', '=', row.provider).where('subject', '=', row.subject).execute()
        counts.resealed++
      }
      for (const row of await trx.selectFrom('oauth_clients').select(['provider', 'sealed']).execute()) {
        const sealed = reseal(row.sealed, sealedBinding.oauthClient(row.provider))
        if (sealed === null) {
          counts.unreadable++
          continue
        }
        await trx.updateTable('oauth_clients').set({ sealed }).where('provider', '=', row.provider).execute()
        counts.resealed++
      }
      // Flows in progress are started again: their PKCE verifiers are not worth carrying over.
      await trx.deleteFrom('oauth_states').execute()
      await trx.deleteFrom('edge_calls').where('secrets', 'is not', null).execute()
      await trx.insertInto('audit_events').values(event(counts)).execute()
      return counts
    })
  }

  /** Delete a value with its audit event in the same transaction; undefined (and no event) when there was none. */
  async delete(id: ConnectionValueId, event: (deleted: ConnectionValueMeta) => EventRow): Promise<ConnectionValueMeta | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('connection_values')
        .where('kind', '=', id.kind)
        .where('name', '=', id.name)
        .where('scope', '=', id.scope)
        .where('subject', '=', id.subject)
        .returning(['kind', 'name', 'scope', 'subject', 'version', 'updated_at', 'updated_by'])
        .executeTakeFirst()
      if (deleted) await trx.insertInto('audit_events').values(event(deleted)).execute()
      return deleted
    })
  }
}
