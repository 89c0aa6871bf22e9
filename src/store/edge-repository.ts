import type { CompiledQuery, Kysely, Selectable } from 'kysely'
import type SQLite from 'better-sqlite3'
import type { Database, EdgeCallsTable, EdgesTable } from './database.js'

export type EdgeRow = Selectable<EdgesTable>
export type EdgeCallRow = Selectable<EdgeCallsTable>

/** Enrolled edges, who holds their connection, and the calls relayed between managers for them. */
export class EdgeRepository {
  // The relay's polls (every few ms while a call waits, every 50 ms while edges are held) are
  // prepared once: SQLite statements on its connection, else queries compiled once.
  readonly #polls: RelayPolls

  constructor(
    private readonly db: Kysely<Database>,
    sqlite?: SQLite.Database,
  ) {
    this.#polls = sqlite ? new SqlitePolls(sqlite, db) : new CompiledPolls(db)
  }

  async insert(row: EdgeRow): Promise<void> {
    await this.db.insertInto('edges').values(row).execute()
  }

  list(): Promise<EdgeRow[]> {
    return this.db.selectFrom('edges').selectAll().orderBy('created_at').orderBy('id').execute()
  }

  get(id: string): Promise<EdgeRow | undefined> {
    return this.db.selectFrom('edges').selectAll().where('id', '=', id).executeTakeFirst()
  }

  findByName(name: string): Promise<EdgeRow | undefined> {
    return this.db.selectFrom('edges').selectAll().where('name', '=', name).executeTakeFirst()
  }

  /** Replace an active edge's granted secret names; the row, or undefined when none is active. */
  async grantSecrets(id: string, secrets: string): Promise<EdgeRow | undefined> {
    return this.db.updateTable('edges').set({ secrets }).where('id', '=', id).where('revoked_at', 'is', null).returningAll().executeTakeFirst()
  }

  /** Give an active edge a new token (the old one stops at once); the row, or undefined when none is active. */
  async rotate(id: string, tokenHash: string, expiresAt: string | null): Promise<EdgeRow | undefined> {
    return this.db
      .updateTable('edges')
      .set({ token_hash: tokenHash, token_expires_at: expiresAt })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst()
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.updateTable('edges').set({ name }).where('id', '=', id).execute()
  }

  /** Revoke an active edge by id or name; the revoked row, or undefined when none was active. */
  async revoke(idOrName: string, now: string): Promise<EdgeRow | undefined> {
    const row = await this.db
      .selectFrom('edges')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    if (!row) return undefined
    const result = await this.db
      .updateTable('edges')
      .set({ revoked_at: now, manager_id: null })
      .where('id', '=', row.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1 ? { ...row, revoked_at: now, manager_id: null } : undefined
  }

  /**
   * Record a connection this manager took: what the edge announced and that this manager holds it,
   * only while the row still names the holder `seen` when the connection was let in (none, or one
   * judged gone) or this manager; false when another manager took the edge meanwhile.
   */
  async connected(
    id: string,
    fields: Pick<EdgeRow, 'hostname' | 'os' | 'arch' | 'version' | 'skills' | 'connected_at' | 'last_seen_at'> & { manager_id: string },
    seen: Pick<EdgeRow, 'manager_id' | 'connected_at'>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('edges')
      .set(fields)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('manager_id', '=', fields.manager_id),
          // Freed since it was read (the old connection's end landed late): free to take.
          eb('manager_id', 'is', null),
          eb.and([
            seen.manager_id === null ? eb('manager_id', 'is', null) : eb('manager_id', '=', seen.manager_id),
            seen.connected_at === null ? eb('connected_at', 'is', null) : eb('connected_at', '=', seen.connected_at),
          ]),
        ]),
      )
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** This manager's connection ended; a newer one (another manager's, say) is left alone. */
  async disconnected(id: string, managerId: string, connectedAt: string, now: string): Promise<void> {
    await this.db
      .updateTable('edges')
      .set({ manager_id: null, last_seen_at: now })
      .where('id', '=', id)
      .where('manager_id', '=', managerId)
      .where('connected_at', '=', connectedAt)
      .execute()
  }

  /** The heartbeat of every edge this manager holds, in one statement. */
  async seen(ids: string[], managerId: string, now: string): Promise<void> {
    if (ids.length === 0) return
    await this.db.updateTable('edges').set({ last_seen_at: now }).where('id', 'in', ids).where('manager_id', '=', managerId).execute()
  }

  async insertCall(row: EdgeCallRow): Promise<void> {
    await this.db.insertInto('edge_calls').values(row).execute()
  }

  /** Take the pending calls addressed to this manager (each taken once, whoever else looks). */
  async takeCalls(holderId: string): Promise<EdgeCallRow[]> {
    const taken: EdgeCallRow[] = []
    for (const row of await this.#polls.pending(holderId)) if (await this.#polls.take(row.id)) taken.push({ ...row, state: 'taken' })
    return taken
  }

  /** Calls whose caller asked to cancel them, among those this manager runs. */
  cancelledCalls(holderId: string): Promise<Array<Pick<EdgeCallRow, 'id'>>> {
    return this.#polls.cancelled(holderId)
  }

  /** The answer to a relayed call; false when it was cancelled or gone meanwhile. */
  async answer(id: string, result: string): Promise<boolean> {
    const updated = await this.db.updateTable('edge_calls').set({ state: 'done', result }).where('id', '=', id).where('state', '=', 'taken').executeTakeFirst()
    return Number(updated.numUpdatedRows) === 1
  }

  async cancel(id: string): Promise<void> {
    await this.db.updateTable('edge_calls').set({ state: 'cancelled' }).where('id', '=', id).where('state', 'in', ['pending', 'taken']).execute()
  }

  getCall(id: string): Promise<EdgeCallRow | undefined> {
    return this.#polls.call(id)
  }

  async deleteCall(id: string): Promise<void> {
    await this.db.deleteFrom('edge_calls').where('id', '=', id).execute()
  }

  /** Relayed calls of managers that are gone, and those left over longer than any deadline. */
  async sweepCalls(livingManagerIds: string[], before: string): Promise<void> {
    await this.db
      .deleteFrom('edge_calls')
      .where((eb) => eb.or([eb('created_at', '<', before), ...(livingManagerIds.length ? [eb('caller_manager_id', 'not in', livingManagerIds)] : [])]))
      .execute()
  }
}

/** The relay's polling queries. */
interface RelayPolls {
  pending(holderId: string): Promise<EdgeCallRow[]>
  /** Mark a pending call taken; false when another look took it first. */
  take(id: string): Promise<boolean>
  cancelled(holderId: string): Promise<Array<Pick<EdgeCallRow, 'id'>>>
  call(id: string): Promise<EdgeCallRow | undefined>
}

// Stands for a run's value in a query compiled once (replaced in its parameters, wherever it is).
const VALUE = '\u0000value'
const bind = <R>(query: CompiledQuery<R>, value: string): CompiledQuery<R> => ({
  ...query,
  parameters: query.parameters.map((p) => (p === VALUE ? value : p)),
})

/** The queries built and compiled once, their value set per run (PostgreSQL). */
class CompiledPolls implements RelayPolls {
  readonly #pending: CompiledQuery<EdgeCallRow>
  readonly #take: CompiledQuery
  readonly #cancelled: CompiledQuery<Pick<EdgeCallRow, 'id'>>
  readonly #call: CompiledQuery<EdgeCallRow>

  constructor(private readonly db: Kysely<Database>) {
    this.#pending = db.selectFrom('edge_calls').selectAll().where('holder_id', '=', VALUE).where('state', '=', 'pending').compile()
    this.#take = db.updateTable('edge_calls').set({ state: 'taken' }).where('id', '=', VALUE).where('state', '=', 'pending').compile()
    this.#cancelled = db.selectFrom('edge_calls').select('id').where('holder_id', '=', VALUE).where('state', '=', 'cancelled').compile()
    this.#call = db.selectFrom('edge_calls').selectAll().where('id', '=', VALUE).compile()
  }

  async pending(holderId: string): Promise<EdgeCallRow[]> {
    return (await this.db.executeQuery(bind(this.#pending, holderId))).rows
  }

  async take(id: string): Promise<boolean> {
    return Number((await this.db.executeQuery(bind(this.#take, id))).numAffectedRows) === 1
  }

  async cancelled(holderId: string): Promise<Array<Pick<EdgeCallRow, 'id'>>> {
    return (await this.db.executeQuery(bind(this.#cancelled, holderId))).rows
  }

  async call(id: string): Promise<EdgeCallRow | undefined> {
    return (await this.db.executeQuery(bind(this.#call, id))).rows[0]
  }
}

/**
 * SQLite statements prepared once on the connection under Kysely. Inside a transaction Kysely holds
 * open (a statement here would join it), the compiled queries run instead, after it.
 */
class SqlitePolls implements RelayPolls {
  readonly #fallback: CompiledPolls
  readonly #pending: SQLite.Statement<[string], EdgeCallRow>
  readonly #take: SQLite.Statement<[string]>
  readonly #cancelled: SQLite.Statement<[string], Pick<EdgeCallRow, 'id'>>
  readonly #call: SQLite.Statement<[string], EdgeCallRow>

  constructor(
    private readonly sqlite: SQLite.Database,
    db: Kysely<Database>,
  ) {
    this.#fallback = new CompiledPolls(db)
    this.#pending = sqlite.prepare("select * from edge_calls where holder_id = ? and state = 'pending'")
    this.#take = sqlite.prepare("update edge_calls set state = 'taken' where id = ? and state = 'pending'")
    this.#cancelled = sqlite.prepare("select id from edge_calls where holder_id = ? and state = 'cancelled'")
    this.#call = sqlite.prepare('select * from edge_calls where id = ?')
  }

  async pending(holderId: string): Promise<EdgeCallRow[]> {
    if (this.sqlite.inTransaction) return this.#fallback.pending(holderId)
    return this.#pending.all(holderId)
  }

  async take(id: string): Promise<boolean> {
    if (this.sqlite.inTransaction) return this.#fallback.take(id)
    return this.#take.run(id).changes === 1
  }

  async cancelled(holderId: string): Promise<Array<Pick<EdgeCallRow, 'id'>>> {
    if (this.sqlite.inTransaction) return this.#fallback.cancelled(holderId)
    return this.#cancelled.all(holderId)
  }

  async call(id: string): Promise<EdgeCallRow | undefined> {
    if (this.sqlite.inTransaction) return this.#fallback.call(id)
    return this.#call.get(id)
  }
}
