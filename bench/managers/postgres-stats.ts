import pg from 'pg'
import { existsSync } from 'node:fs'
import { parentPid } from './proc.js'

/** The server's settings that decide what a commit costs, and where its processes are. */
export interface ServerFacts {
  version: string
  fsync: boolean
  synchronousCommit: string
  /** track_wal_io_timing: pg_stat_wal's wal_write_time and wal_sync_time are counted only with it on. */
  walTiming: boolean
  walSyncMethod: string
  maxConnections: number
  reservedConnections: number
  /** The postmaster's pid where its processes are visible in /proc (the server runs on this machine), else null. */
  postmaster: number | null
}

export async function serverFacts(client: pg.Client): Promise<ServerFacts> {
  const { rows } = await client.query<Record<string, string>>(
    `select current_setting('server_version') as version, current_setting('fsync') as fsync,
            current_setting('synchronous_commit') as synchronous_commit, current_setting('track_wal_io_timing') as wal_timing,
            current_setting('wal_sync_method') as wal_sync_method, current_setting('max_connections') as max_connections,
            current_setting('superuser_reserved_connections') as reserved, pg_backend_pid() as pid`,
  )
  const row = rows[0]!
  const pid = Number(row.pid)
  return {
    version: row.version!,
    fsync: row.fsync === 'on',
    synchronousCommit: row.synchronous_commit!,
    walTiming: row.wal_timing === 'on',
    walSyncMethod: row.wal_sync_method!,
    maxConnections: Number(row.max_connections),
    reservedConnections: Number(row.reserved),
    postmaster: existsSync(`/proc/${pid}`) ? parentPid(pid) : null,
  }
}

/** PostgreSQL's counters at one moment. */
export interface PostgresMark {
  /** pg_stat_wal (15+), flushed to shared memory by each backend when it goes idle, at most once a second. */
  walWrites: number
  walSyncs: number
  walWriteMs: number
  walSyncMs: number
  /** Rows inserted into audit_calls, counted by the same statistics flushes as the WAL figures: one per call. */
  auditInserts: number
  /** Exact now: the WAL position (bytes) and the next transaction id (every writing transaction takes one). */
  walBytes: bigint
  nextXid: bigint
}

export async function postgresMark(client: pg.Client): Promise<PostgresMark> {
  const { rows } = await client.query<Record<string, string>>(
    `select w.wal_write, w.wal_sync, w.wal_write_time, w.wal_sync_time,
            coalesce((select n_tup_ins from pg_stat_user_tables where relname = 'audit_calls'), 0) as inserts,
            pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as lsn,
            pg_snapshot_xmax(pg_current_snapshot())::text as xid
       from pg_stat_wal w`,
  )
  const row = rows[0]!
  return {
    walWrites: Number(row.wal_write),
    walSyncs: Number(row.wal_sync),
    walWriteMs: Number(row.wal_write_time),
    walSyncMs: Number(row.wal_sync_time),
    auditInserts: Number(row.inserts),
    walBytes: BigInt(row.lsn!.split('.')[0]!),
    nextXid: BigInt(row.xid!),
  }
}

/** What moved between two marks: `end` − `start`, field by field. */
export function markDelta(start: PostgresMark, end: PostgresMark): PostgresMark {
  return {
    walWrites: end.walWrites - start.walWrites,
    walSyncs: end.walSyncs - start.walSyncs,
    walWriteMs: end.walWriteMs - start.walWriteMs,
    walSyncMs: end.walSyncMs - start.walSyncMs,
    auditInserts: end.auditInserts - start.auditInserts,
    walBytes: end.walBytes - start.walBytes,
    nextXid: end.nextXid - start.nextXid,
  }
}

export function sumMarks(marks: PostgresMark[]): PostgresMark {
  const zero: PostgresMark = { walWrites: 0, walSyncs: 0, walWriteMs: 0, walSyncMs: 0, auditInserts: 0, walBytes: 0n, nextXid: 0n }
  return marks.reduce(
    (sum, m) => ({
      walWrites: sum.walWrites + m.walWrites,
      walSyncs: sum.walSyncs + m.walSyncs,
      walWriteMs: sum.walWriteMs + m.walWriteMs,
      walSyncMs: sum.walSyncMs + m.walSyncMs,
      auditInserts: sum.auditInserts + m.auditInserts,
      walBytes: sum.walBytes + m.walBytes,
      nextXid: sum.nextXid + m.nextXid,
    }),
    zero,
  )
}

/** WAL and commits per call. */
export interface WalPerCall {
  /** WAL flushes per call: pg_stat_wal's wal_sync ÷ audit rows inserted over the same statistics flushes. */
  syncs: number | null
  /** WAL write + flush time per call, µs, or null without track_wal_io_timing. */
  walMicros: number | null
  /** WAL bytes per call (exact: the WAL position moved). */
  bytes: number
  /** Writing transactions per call (exact: transaction ids taken), the managers' other writes included. */
  transactions: number
}

/** Per call, from what moved (markDelta) while `calls` calls were answered. */
export function walPerCall(moved: PostgresMark, calls: number, timing: boolean): WalPerCall {
  // Ratios of statistics flushed together: a round's last second may be flushed during the next
  // round, but its inserts and its WAL move over together.
  const inserts = moved.auditInserts
  return {
    syncs: inserts > 0 ? moved.walSyncs / inserts : null,
    walMicros: timing && inserts > 0 ? ((moved.walWriteMs + moved.walSyncMs) * 1000) / inserts : null,
    bytes: Number(moved.walBytes) / calls,
    transactions: Number(moved.nextXid) / calls,
  }
}

/** pg_test_fsync's question asked through PostgreSQL: what one commit costs, one after another on one connection. */
export interface CommitProbe {
  commits: number
  /** Per commit of one audit row, ms, seen from the client. */
  commitMs: number
  /** Per `select 1` on the same connection (the round trip a commit includes), ms. */
  roundTripMs: number
  /** WAL flushes per commit, from pg_stat_wal. */
  syncsPerCommit: number
  /** Mean time of one WAL flush (wal_sync_time ÷ wal_sync), ms; null without track_wal_io_timing. */
  syncMs: number | null
}

/**
 * `count` commits of `statement` one after another (each its own transaction), and as many `select 1`.
 * This backend's statistics are flushed before each read of pg_stat_wal (pg_stat_force_next_flush,
 * PostgreSQL 15), so the figures are its own commits', whatever the other backends have pending.
 */
export async function probeCommits(client: pg.Client, count: number, statement: (i: number) => [string, unknown[]], timing: boolean): Promise<CommitProbe> {
  const wal = async () => {
    await client.query('select pg_stat_force_next_flush()')
    const { rows } = await client.query<{ wal_sync: string; wal_sync_time: number }>('select wal_sync, wal_sync_time from pg_stat_wal')
    return { syncs: Number(rows[0]!.wal_sync), syncMs: Number(rows[0]!.wal_sync_time) }
  }
  let started = performance.now()
  for (let i = 0; i < count; i++) await client.query('select 1')
  const roundTripMs = (performance.now() - started) / count
  const before = await wal()
  started = performance.now()
  for (let i = 0; i < count; i++) await client.query(...statement(i))
  const commitMs = (performance.now() - started) / count
  const after = await wal()
  const syncs = after.syncs - before.syncs
  return {
    commits: count,
    commitMs,
    roundTripMs,
    syncsPerCommit: syncs / count,
    syncMs: timing && syncs > 0 ? (after.syncMs - before.syncMs) / syncs : null,
  }
}
