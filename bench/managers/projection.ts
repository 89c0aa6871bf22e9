/** The resources a deployment of several managers on one PostgreSQL can run out of. */
export type Resource = 'manager CPU' | 'PostgreSQL CPU' | 'WAL flushes/commit latency' | 'connections'

/** What one audited call costs, measured with one manager (see docs/deployment.md#how-far-more-managers-go). */
export interface ProjectionInputs {
  /** m: a manager's CPU (all its threads) per call it served, µs. */
  managerMicros: number
  /** p: PostgreSQL's CPU per call (its backends for the database and its background processes), µs; null where /proc can't see the server. */
  postgresMicros: number | null
  /** w: time PostgreSQL spent writing and flushing WAL per call, µs; null where neither its timing nor a flush probe was measured. */
  walMicros: number | null
  /** t: writing transactions (commits) per call, the audit writer's batching included. */
  transactionsPerCall: number | null
  /** L: one commit's latency seen from a client (round trip and WAL flush), ms. */
  commitMs: number | null
  /** N: calls in flight (the clients' concurrency). */
  inFlight: number
  /** Commits a call waits for one after another: its running row before the skill runs, its final row before the answer. */
  commitsInTurn: number
  /** Connections each manager's pool may open. */
  poolPerManager: number
  /** Connections the server takes from non-superusers (max_connections − superuser_reserved_connections). */
  usableConnections: number | null
  /** Cores given to PostgreSQL in the projection. */
  postgresCores: number
}

export interface Projection {
  managers: number
  /** The least of the bounds. */
  callsPerSecond: number
  /** callsPerSecond ÷ one manager's projected figure. */
  ratio: number
  binds: Resource
  /** Calls/s each resource allows alone, null where its input was not measured. */
  bounds: Record<Resource, number | null>
  /** Cores PostgreSQL would need to keep pace with these managers at full speed. */
  postgresCoresNeeded: number | null
  /** Share of the time WAL is being written or flushed at the projected rate, at the batching measured (1 = always). */
  walBusy: number | null
  connections: number
}

/**
 * Throughput of n managers, each on a core of its own (a manager's JavaScript runs on one thread),
 * and PostgreSQL on `postgresCores` cores of its own: the least of what each resource allows.
 * - manager CPU: n × 10⁶ / m
 * - PostgreSQL CPU: cores × 10⁶ / p
 * - WAL flushes/commit latency: N × 1000 / (2 × L): N calls in flight, each waiting for its two
 *   commits in turn (Little's law); more managers don't raise it, more calls in flight do
 * - connections: the managers whose whole pool fits in the server's connections, × 10⁶ / m
 * WAL busy (rate × w) is not a bound: PostgreSQL flushes WAL one flush at a time, and when the
 * flushes fill the time, each carries more commits (and each manager's commit more calls), so w
 * shrinks as the load grows, at the price of latency, which the commit bound counts.
 */
export function project(inputs: ProjectionInputs, counts: number[] = [1, 2, 4, 8]): Projection[] {
  const { managerMicros: m, postgresMicros: p, walMicros: w, commitMs: l } = inputs
  const one = (n: number) => {
    const connections = n * inputs.poolPerManager
    const fitting = inputs.usableConnections === null ? n : Math.min(n, Math.floor(inputs.usableConnections / inputs.poolPerManager))
    const bounds: Record<Resource, number | null> = {
      'manager CPU': (n * 1e6) / m,
      'PostgreSQL CPU': p === null || p <= 0 ? null : (inputs.postgresCores * 1e6) / p,
      'WAL flushes/commit latency': l === null || l <= 0 ? null : (inputs.inFlight * 1000) / (inputs.commitsInTurn * l),
      connections: fitting >= n ? null : (fitting * 1e6) / m,
    }
    let binds: Resource = 'manager CPU'
    for (const [resource, bound] of Object.entries(bounds) as Array<[Resource, number | null]>) {
      if (bound !== null && bound < bounds[binds]!) binds = resource
    }
    const callsPerSecond = bounds[binds]!
    return {
      managers: n,
      callsPerSecond,
      binds,
      bounds,
      postgresCoresNeeded: p === null ? null : (bounds['manager CPU']! * p) / 1e6,
      walBusy: w === null ? null : (callsPerSecond * w) / 1e6,
      connections,
    }
  }
  const base = one(1).callsPerSecond
  return counts.map((n) => {
    const projection = one(n)
    return { ...projection, ratio: projection.callsPerSecond / base }
  })
}
