import type { Logger } from 'pino'
import type { Registry, Catalog } from '../registry/index.js'
import type { AuditWriter } from '../audit/index.js'
import type { Caller, SkillContext } from '../skill/index.js'
import type { Connections } from '../connections/index.js'
import type { OAuthConnections } from '../oauth/index.js'
import type { Policies, Approvals, Grants } from '../policy/index.js'
import type { EdgeRouter } from './edge-router.js'

export interface PipelineDeps {
  /** Whether the plane has begun to stop: new calls are refused from then, before the pipeline's own turn to close. */
  stopping?: () => boolean
  registry: Registry
  catalog: Catalog
  audit: AuditWriter
  logger: Logger
  policies: Policies
  approvals: Approvals
  /** Conversation grants: a call one covers runs without a request of its own. */
  grants: Grants
  managerId: string
  /** Results larger than this are stored cut, and marked so. */
  maxResultBytes: number
  /** How long `wait: true` waits for an approval decision; a caller may ask for less, never more. */
  approvalWaitMs: number
  /** Where host-scope calls go; without it they answer edge_unavailable. */
  edges?: EdgeRouter
  /** Where declared secrets and settings are read; without it a skill that declares one can't run. */
  connections?: Pick<Connections, 'resolve'>
  /** Where OAuth access tokens are read (refreshed when due); without it a skill with `oauth` can't run. */
  oauth?: Pick<OAuthConnections, 'token'>
  /** Shared memory and learnings for a call's `ctx`; without them `ctx.memory` and `ctx.learn` refuse. */
  callServices?: (call: CallOrigin) => Pick<SkillContext, 'memory' | 'learn'>
  /** Told of each call that ended ok, after its final row (discovery learns from them). */
  onCallOk?: (call: { key: string; conversationId: string | null }) => void
}

/** Who a call's `ctx` acts for: what memory writes and learnings are recorded with. */
export interface CallOrigin {
  callId: string
  skill: string
  caller: Caller
  agentId: string | null
  /** The secret values the call was given: they must not land in shared memory or a learning. */
  scrub: ReadonlySet<string>
}
