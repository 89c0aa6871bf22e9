import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Skillplane } from '../../../agents/index.js'
import type { McpHttpSessions } from '../../mcp/index.js'

// Calls to skills the registry does not hold share one label value, so callers can't grow the series.
const UNKNOWN_SKILL = '(unknown)'
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
// People take seconds to days to decide.
const WAIT_BUCKETS_S = [10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86_400, 3 * 86_400, 7 * 86_400]

/**
 * The plane's Prometheus metrics, in a registry of its own: counters move as calls finish, gauges
 * are read at scrape time. Process metrics start with the first scrape, so unscraped planes pay nothing.
 */
export class PlaneMetrics {
  readonly #registry = new Registry()
  #processMetrics = false

  constructor(plane: Skillplane, mcp: McpHttpSessions) {
    const registers = [this.#registry]
    const calls = new Counter({
      name: 'skillplane_calls_total',
      help: 'Finished skill calls by skill and audit status',
      labelNames: ['skill', 'status'],
      registers,
    })
    const duration = new Histogram({
      name: 'skillplane_call_duration_seconds',
      help: 'Skill call latency by skill',
      labelNames: ['skill'],
      buckets: DURATION_BUCKETS_S,
      registers,
    })
    plane.audit.onCallFinished(({ skill, status, durationMs }) => {
      const label = plane.skills.get(skill) ? skill : UNKNOWN_SKILL
      calls.inc({ skill: label, status })
      if (durationMs !== null) duration.observe({ skill: label }, durationMs / 1000)
    })
    // Skills once pending read 0 afterwards, instead of their series vanishing.
    const seen = new Set<string>()
    new Gauge({
      name: 'skillplane_approvals_pending',
      help: 'Approval requests waiting for decisions, by skill (absent while the database is unavailable)',
      labelNames: ['skill'],
      registers,
      async collect() {
        try {
          const pending = await plane.audit.health.pending('skill')
          const counts = new Map([...seen].map((skill) => [skill, 0]))
          for (const [key, n] of pending) {
            const skill = plane.skills.get(key) ? key : UNKNOWN_SKILL
            counts.set(skill, (counts.get(skill) ?? 0) + n)
            seen.add(skill)
          }
          this.reset()
          for (const [skill, n] of counts) this.set({ skill }, n)
        } catch (error) {
          this.reset()
          plane.logger.warn({ err: error }, 'metrics: pending approvals could not be counted')
        }
      },
    })
    const waits = new Histogram({
      name: 'skillplane_approval_wait_seconds',
      help: 'How long approval requests waited for their decision (or until they expired), by skill',
      labelNames: ['skill'],
      buckets: WAIT_BUCKETS_S,
      registers,
    })
    plane.audit.onApprovalWaited(({ skill, seconds }) => waits.observe({ skill: plane.skills.get(skill) ? skill : UNKNOWN_SKILL }, seconds))
    const runs = new Counter({
      name: 'skillplane_agent_runs_total',
      help: 'Agent runs this process drove to their end, by agent and status (completed or failed)',
      labelNames: ['agent', 'status'],
      registers,
    })
    plane.runs.onRunEnded(({ agent, status }) => runs.inc({ agent, status }))
    const tokens = new Counter({
      name: 'skillplane_model_tokens_total',
      help: 'Tokens the models of agent runs reported, by agent, model and kind (input, output, cached_input: the part of input read from cache)',
      labelNames: ['agent', 'model', 'kind'],
      registers,
    })
    plane.runs.onModelUsage(({ agent, model, tokens: used }) => {
      for (const [kind, n] of [
        ['input', used.input],
        ['output', used.output],
        ['cached_input', used.cachedInput],
      ] as const) {
        if (n !== undefined) tokens.inc({ agent, model, kind }, n)
      }
    })
    new Gauge({
      name: 'skillplane_audit_queue_depth',
      help: 'Audit rows queued for the database or being committed',
      registers,
      collect() {
        this.set(plane.status.auditQueue)
      },
    })
    new Gauge({
      name: 'skillplane_audit_backlog',
      help: 'Finished audit rows kept locally until the database is back',
      registers,
      collect() {
        this.set(plane.status.auditBacklog)
      },
    })
    new Gauge({
      name: 'skillplane_mcp_servers_connected',
      help: 'Configured MCP servers connected now',
      registers,
      collect() {
        this.set(plane.sources.mcpServers().filter((s) => s.state === 'connected').length)
      },
    })
    new Gauge({
      name: 'skillplane_mcp_sessions',
      help: 'Open MCP sessions on /mcp',
      registers,
      collect() {
        this.set(mcp.size)
      },
    })
    new Gauge({
      name: 'skillplane_edges_online',
      help: 'Enrolled edges online now',
      registers,
      collect() {
        this.set(plane.sources.edges.list().filter((e) => e.online).length)
      },
    })
  }

  get contentType(): string {
    return this.#registry.contentType
  }

  /** The exposition text. */
  scrape(): Promise<string> {
    if (!this.#processMetrics) {
      this.#processMetrics = true
      collectDefaultMetrics({ register: this.#registry })
    }
    return this.#registry.metrics()
  }
}
