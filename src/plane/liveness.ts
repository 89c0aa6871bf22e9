import type { Logger } from 'pino'
import type { ManagerRepository, AuditRepository, RunRepository } from '../store/index.js'
import { hostIdentity, processExists } from '../system/index.js'
import { ProcessGroups } from '../system/index.js'
import { stepByStep } from './heartbeat.js'

// A manager whose heartbeat is older than this is considered dead and its running calls interrupted.
const HEARTBEAT_MS = 5_000
const DEAD_AFTER_MS = 30_000

export interface LivenessOptions {
  managerId: string
  managers: ManagerRepository
  audit: AuditRepository
  runs: RunRepository
  /** Where this host's managers record their subprocess groups. */
  processGroupsDir: string
  logger: Logger
  now(): string
}

/**
 * This manager's heartbeat and the recovery of its dead peers' work. A manager is alive while its
 * heartbeat is fresh; on this host, also only while its process exists, so a crash is seen at once.
 */
export class Liveness {
  readonly #o: LivenessOptions
  readonly #host = hostIdentity()
  readonly #started: string
  #timer: NodeJS.Timeout | undefined
  /** The heartbeat under way: a tick that finds one skips, and a shutdown waits for it. */
  #running: Promise<void> | undefined

  constructor(options: LivenessOptions) {
    this.#o = options
    this.#started = options.now()
  }

  /** Record this manager as alive now. */
  beat(): Promise<void> {
    const { managerId, now } = this.#o
    return this.#o.managers.heartbeat({ id: managerId, hostname: this.#host, pid: process.pid, started_at: this.#started, heartbeat_at: now() })
  }

  /** Whether a peer is alive: its heartbeat fresh and, on this host, its process still there (a crash is seen at once). */
  async isAlive(managerId: string): Promise<boolean> {
    const row = await this.#o.managers.findAlive(managerId, new Date(Date.now() - DEAD_AFTER_MS).toISOString())
    return row !== undefined && (row.hostname !== this.#host || processExists(row.pid))
  }

  /** The other managers alive on this database now (read through `managers`, say one inside a transaction). */
  async peers(managers = this.#o.managers): Promise<Array<{ id: string; hostname: string; pid: number }>> {
    const alive = await managers.heartbeatSince(new Date(Date.now() - DEAD_AFTER_MS).toISOString())
    return alive.filter((m) => m.id !== this.#o.managerId && (m.hostname !== this.#host || processExists(m.pid)))
  }

  /** Mark the calls and runs of stopped managers interrupted or failed; returns the calls marked. */
  async recover(): Promise<number> {
    const { managers, audit, runs, logger, managerId, now } = this.#o
    // Subprocesses a dead manager of this host left running stop before their calls are judged.
    const killed = ProcessGroups.reap(this.#o.processGroupsDir)
    if (killed > 0) logger.warn({ groups: killed }, 'killed subprocess groups left running by a stopped manager')
    const cutoff = new Date(Date.now() - DEAD_AFTER_MS).toISOString()
    const alive = (await managers.heartbeatSince(cutoff)).filter((m) => m.hostname !== this.#host || processExists(m.pid))
    const living = [managerId, ...alive.map((m) => m.id)]
    let recovered = 0
    await stepByStep([
      async () => (recovered = await audit.markInterrupted(living, now())),
      async () => {
        const orphanedRuns = await runs.failOrphaned(living, now())
        if (orphanedRuns > 0) logger.warn({ runs: orphanedRuns }, 'agent runs left running by a stopped manager were marked failed')
      },
      () => managers.removeStale(cutoff),
    ])
    if (recovered > 0) logger.warn({ calls: recovered }, 'calls left running by a stopped manager were marked interrupted')
    return recovered
  }

  /** Beat alone every 5 s while the plane starts: a long start-up (services, MCP servers) must not look dead to a secrets-key rotation. */
  beatWhileStarting(): void {
    this.#timer = setInterval(() => this.beat().catch((error) => this.#o.logger.warn({ err: error }, 'heartbeat failed')), HEARTBEAT_MS)
    this.#timer.unref()
  }

  /**
   * Every 5 s: the heartbeat keeps this manager's running calls safe from its peers' recovery,
   * `refresh` picks up what other managers changed, and then dead peers are recovered. One step a
   * turn of the event loop, so calls and requests are served between them.
   */
  start(refresh: () => Promise<unknown>, afterRecovery: () => Promise<unknown>): void {
    clearInterval(this.#timer)
    this.#timer = setInterval(() => {
      // Spread over many turns, a heartbeat on a busy machine can outlast the interval: the next waits for the one after.
      if (this.#running) return
      this.#running = stepByStep([() => this.beat(), refresh])
        .then(() => stepByStep([() => this.recover(), afterRecovery]))
        .catch((error) => this.#o.logger.warn({ err: error }, 'heartbeat, catalog refresh or recovery failed'))
        .finally(() => (this.#running = undefined))
    }, HEARTBEAT_MS)
    this.#timer.unref()
  }

  /** Stop beating, and let a heartbeat under way finish before what it uses closes: the first step of a shutdown. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
  }

  /** Leave the managers table at the end of a clean shutdown, so peers have nothing to recover. */
  async leave(): Promise<void> {
    await this.#o.managers.remove(this.#o.managerId).catch(() => {})
  }
}
