import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, OAuthConnectionsTable, OAuthStatesTable } from './database.js'
import type { EventRow } from './event-repository.js'

export type OAuthConnectionRow = Selectable<OAuthConnectionsTable>
/** A connection without its sealed tokens: what listings and the in-memory state read. */
export type OAuthConnectionMeta = Omit<OAuthConnectionRow, 'sealed'>
export type OAuthStateRow = Selectable<OAuthStatesTable>

const META = [
  'provider',
  'subject',
  'scopes',
  'expires_at',
  'status',
  'reason',
  'version',
  'refreshing_until',
  'connected_at',
  'connected_by',
  'updated_at',
] as const

/** OAuth connections, flows in progress and client registrations. Every change that is audited commits with its event. */
export class OAuthRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(subject?: string): Promise<OAuthConnectionMeta[]> {
    let q = this.db.selectFrom('oauth_connections').select(META).orderBy('provider').orderBy('subject')
    if (subject !== undefined) q = q.where('subject', '=', subject)
    return q.execute()
  }

  get(provider: string, subject: string): Promise<OAuthConnectionRow | undefined> {
    return this.db.selectFrom('oauth_connections').selectAll().where('provider', '=', provider).where('subject', '=', subject).executeTakeFirst()
  }

  /** Store a new connection (or replace the old one: a reconnect), one version above it, with its event. */
  async connect(row: Omit<OAuthConnectionRow, 'version' | 'refreshing_until' | 'reason' | 'status'>, event: EventRow): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const saved = await trx
        .insertInto('oauth_connections')
        .values({ ...row, status: 'ready', reason: null, version: 1, refreshing_until: null })
        .onConflict((oc) =>
          oc.columns(['provider', 'subject']).doUpdateSet({
            sealed: row.sealed,
            scopes: row.scopes,
            expires_at: row.expires_at,
            status: 'ready',
            reason: null,
            version: sql<number>`oauth_connections.version + 1`,
            refreshing_until: null,
            connected_at: row.connected_at,
            connected_by: row.connected_by,
            updated_at: row.updated_at,
          }),
        )
        .returning('version')
        .executeTakeFirstOrThrow()
      await trx.insertInto('audit_events').values(event).execute()
      return Number(saved.version)
    })
  }

  /**
   * Take the refresh of a connection at `version` until `until`. One statement: of managers racing,
   * exactly one gets true; the others wait for the version to move.
   */
  async claimRefresh(provider: string, subject: string, version: number, now: string, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_connections')
      .set({ refreshing_until: until })
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .where('version', '=', version)
      .where('status', '=', 'ready')
      .where((eb) => eb.or([eb('refreshing_until', 'is', null), eb('refreshing_until', '<=', now)]))
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** The refreshed tokens, if the connection is still the one refreshed (a reconnect or disconnect meanwhile wins). */
  async refreshed(
    provider: string,
    subject: string,
    version: number,
    fields: { sealed: string; scopes: string; expires_at: string | null; updated_at: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_connections')
      .set({ ...fields, version: sql<number>`version + 1`, refreshing_until: null })
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .where('version', '=', version)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** Give up a refresh that could not reach the provider: the next call tries again. */
  async releaseRefresh(provider: string, subject: string, version: number): Promise<void> {
    await this.db
      .updateTable('oauth_connections')
      .set({ refreshing_until: null })
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .where('version', '=', version)
      .execute()
  }

  /** The provider refused the connection's grant: it needs the person again. With its event; false when it had moved on. */
  async needsAuth(provider: string, subject: string, version: number, reason: string, now: string, event: EventRow): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('oauth_connections')
        .set({ status: 'needs_auth', reason, refreshing_until: null, version: sql<number>`version + 1`, updated_at: now })
        .where('provider', '=', provider)
        .where('subject', '=', subject)
        .where('version', '=', version)
        .executeTakeFirst()
      if (Number(result.numUpdatedRows) !== 1) return false
      await trx.insertInto('audit_events').values(event).execute()
      return true
    })
  }

  /** Delete a connection with its event; undefined (no event) when there was none. */
  async disconnect(provider: string, subject: string, event: (row: OAuthConnectionRow) => EventRow): Promise<OAuthConnectionRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('oauth_connections')
        .where('provider', '=', provider)
        .where('subject', '=', subject)
        .returningAll()
        .executeTakeFirst()
      if (deleted) await trx.insertInto('audit_events').values(event(deleted)).execute()
      return deleted
    })
  }

  async startFlow(row: OAuthStateRow): Promise<void> {
    await this.db.insertInto('oauth_states').values(row).execute()
    // Flows never called back go with the next one started.
    await this.db.deleteFrom('oauth_states').where('expires_at', '<=', row.created_at).execute()
  }

  /** Take a flow once: a second callback with the same state finds nothing (both dialects delete atomically). */
  takeFlow(stateHash: string, now: string): Promise<OAuthStateRow | undefined> {
    return this.db.deleteFrom('oauth_states').where('state_hash', '=', stateHash).where('expires_at', '>', now).returningAll().executeTakeFirst()
  }

  async client(provider: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('oauth_clients').select('sealed').where('provider', '=', provider).executeTakeFirst()
    return row?.sealed
  }

  async saveClient(provider: string, sealed: string, now: string): Promise<void> {
    await this.db
      .insertInto('oauth_clients')
      .values({ provider, sealed, updated_at: now })
      .onConflict((oc) => oc.column('provider').doUpdateSet({ sealed, updated_at: now }))
      .execute()
  }
}
