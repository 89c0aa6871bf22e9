import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Migration } from 'kysely'
import type { Database } from './database.js'
import { StoreError } from './store-error.js'
import { WalCheckpointer } from './wal-checkpointer.js'
import type { Listener } from './pg-listener.js'
import * as initial from './migrations/0001-initial.js'
import * as policiesApprovals from './migrations/0002-policies-approvals.js'
import * as settings from './migrations/0003-settings.js'
import * as skillActivations from './migrations/0004-skill-activations.js'
import * as activationsPerCaller from './migrations/0005-activations-per-caller.js'
import * as mcpTools from './migrations/0006-mcp-tools.js'
import * as auditTraceId from './migrations/0007-audit-trace-id.js'
import * as agentRuns from './migrations/0008-agent-runs.js'
import * as onBehalfOf from './migrations/0009-approvals-on-behalf-of.js'
import * as sopRevocations from './migrations/0010-sop-revocations.js'
import * as edges from './migrations/0011-edges.js'
import * as classOverride from './migrations/0012-class-override.js'
import * as discovery from './migrations/0013-discovery.js'
import * as connectionValues from './migrations/0014-connection-values.js'
import * as memoryLearnings from './migrations/0015-memory-learnings.js'
import * as changeVersions from './migrations/0017-change-versions-audit-indexes.js'
import * as auditLeanIndexes from './migrations/0018-audit-lean-indexes.js'
import * as catalogChangeSeq from './migrations/0019-catalog-change-seq.js'
import * as approvalGrants from './migrations/0020-approval-grants.js'
import * as runStepRev from './migrations/0021-run-step-rev.js'
import * as skillSharingRisks from './migrations/0022-skill-sharing-risks.js'
import * as usersGroups from './migrations/0024-users-groups.js'
import * as sessions from './migrations/0025-sessions.js'
import * as edgeTokenExpiry from './migrations/0026-edge-token-expiry.js'
import * as auditFilterPairs from './migrations/0030-audit-filter-pairs.js'
import * as discoveryExampleManager from './migrations/0031-discovery-example-manager.js'
import * as oauthConnections from './migrations/0032-oauth-connections.js'
import * as conversationIndexes from './migrations/0033-conversation-indexes.js'
import * as runStepTiming from './migrations/0034-run-step-timing.js'
import * as callOrigin from './migrations/0035-call-origin.js'
import * as callStats from './migrations/0036-call-stats.js'
import * as auditSearch from './migrations/0037-audit-search.js'
import * as mcpHttpSessions from './migrations/0038-mcp-http-sessions.js'
import * as runInputs from './migrations/0039-run-inputs.js'

export type Dialect = 'sqlite' | 'postgres'

export interface OpenedDatabase {
  db: Kysely<Database>
  dialect: Dialect
  /** Where the data lives, with any password removed: for logs and errors. */
  location: string
  /** The SQLite connection under Kysely, for the audit log's prepared-statement fast path. */
  sqlite?: SQLite.Database
  /** PostgreSQL only: hear a channel's notifications (managers signal each other this way). */
  listen?(channel: string, onPayload: (payload: string) => void, onReconnect: () => void): Promise<Listener>
  close(): Promise<void>
}

const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_policies_approvals': policiesApprovals,
  '0003_settings': settings,
  '0004_skill_activations': skillActivations,
  '0005_activations_per_caller': activationsPerCaller,
  '0006_mcp_tools': mcpTools,
  '0007_audit_trace_id': auditTraceId,
  '0008_agent_runs': agentRuns,
  '0009_approvals_on_behalf_of': onBehalfOf,
  '0010_sop_revocations': sopRevocations,
  '0011_edges': edges,
  '0012_class_override': classOverride,
  '0013_discovery': discovery,
  '0014_connection_values': connectionValues,
  '0015_memory_learnings': memoryLearnings,
  '0017_change_versions_audit_indexes': changeVersions,
  '0018_audit_lean_indexes': auditLeanIndexes,
  '0019_catalog_change_seq': catalogChangeSeq,
  '0020_approval_grants': approvalGrants,
  '0021_run_step_rev': runStepRev,
  '0022_skill_sharing_risks': skillSharingRisks,
  '0024_users_groups': usersGroups,
  '0025_sessions': sessions,
  '0026_edge_token_expiry': edgeTokenExpiry,
  '0030_audit_filter_pairs': auditFilterPairs,
  '0031_discovery_example_manager': discoveryExampleManager,
  '0032_oauth_connections': oauthConnections,
  '0033_conversation_indexes': conversationIndexes,
  '0034_run_step_timing': runStepTiming,
  '0035_call_origin': callOrigin,
  '0036_call_stats': callStats,
  '0037_audit_search': auditSearch,
  '0038_mcp_http_sessions': mcpHttpSessions,
  '0039_run_inputs': runInputs,
}

export interface OpenDatabaseOptions {
  /** postgres://… selects PostgreSQL; otherwise SQLite under dataDir. */
  databaseUrl?: string
  dataDir: string
  /**
   * SQLite only: checkpoint the WAL on a worker thread instead of inside commits (for processes
   * that live long and write much, such as a serving manager); told of the worker's failures.
   */
  walCheckpointer?: { onError(message: string): void }
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  const opened = options.databaseUrl ? await openPostgres(options.databaseUrl) : openSqlite(options.dataDir)
  try {
    await migrate(opened)
    if (opened.sqlite && options.walCheckpointer) {
      const checkpointer = new WalCheckpointer(opened.sqlite, options.walCheckpointer.onError)
      const close = opened.close
      // The worker's connection goes first, so the last one to close cleans up the WAL.
      opened.close = () => checkpointer.close().then(close)
    }
  } catch (error) {
    await opened.close().catch(() => {})
    throw error instanceof StoreError ? error : new StoreError(`migrating ${opened.location} failed: ${(error as Error).message}`)
  }
  return opened
}

function openSqlite(dataDir: string): OpenedDatabase {
  let file: string
  let connection: SQLite.Database
  try {
    mkdirSync(dataDir, { recursive: true })
    file = join(realpathSync(dataDir), 'skillplane.db')
    connection = new SQLite(file)
    connection.pragma('journal_mode = WAL')
    // NORMAL in WAL mode: every commit survives a process crash; only an OS crash can lose the last ones.
    connection.pragma('synchronous = NORMAL')
    connection.pragma('busy_timeout = 5000')
  } catch (error) {
    throw new StoreError(`cannot open the SQLite database in ${dataDir}: ${(error as Error).message}`)
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) })
  return { db, dialect: 'sqlite', location: file, sqlite: connection, close: () => db.destroy() }
}

async function openPostgres(url: string): Promise<OpenedDatabase> {
  const location = redactUrl(url)
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new StoreError(`unsupported database URL ${location}: use postgres://user:password@host:port/database`)
  }
  // Loaded only for PostgreSQL: importing pg costs a SQLite command tens of ms (it builds a fetch Response to detect its runtime).
  const [{ default: pg }, { listen }] = await Promise.all([import('pg'), import('./pg-listener.js')])
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5000, max: 10 })
  // A server restart or outage must not crash the process: idle clients report to the pool, and a
  // checked-out client (between a transaction's statements) gets its own listener, since pg emits
  // the error there too; the query in flight fails on its own, and the next one reconnects.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  try {
    await sql`select 1`.execute(db)
  } catch (error) {
    await db.destroy().catch(() => {})
    throw new StoreError(`cannot connect to the database at ${location}: ${describePgError(error)}`)
  }
  return {
    db,
    dialect: 'postgres',
    location,
    listen: (channel, onPayload, onReconnect) => listen(url, channel, onPayload, onReconnect),
    close: () => db.destroy(),
  }
}

async function migrate(opened: OpenedDatabase): Promise<void> {
  const migrator = new Migrator({
    db: opened.db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: 'skillplane_migrations',
    migrationLockTableName: 'skillplane_migrations_lock',
    // Branches add migrations independently: one merged later with a lower number still runs.
    allowUnorderedMigrations: true,
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new StoreError(`migration ${failed} failed on ${opened.location}: ${(error as Error).message ?? error}`)
  }
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    for (const name of [...parsed.searchParams.keys()]) {
      if (/pass|secret|key|token/i.test(name)) parsed.searchParams.set(name, '***')
    }
    return parsed.toString()
  } catch {
    return '<unparseable database URL>'
  }
}

function describePgError(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: Array<{ message: string }> }
  // AggregateError from a host that resolves to several addresses carries the useful text inside.
  const message = e.message || e.errors?.map((inner) => inner.message).join('; ') || String(error)
  return e.code ? `${message} (${e.code})` : message
}
