import { secretForms, type SubSpan } from '../audit/index.js'
import type { AuditRow } from '../store/index.js'
import type { Caller, EdgeInfo, Skill, SkillContext } from '../skill/index.js'
import type { CallCancel } from './call-cancel.js'
import type { ApprovalMode, InvokeOptions } from './invoke-options.js'
import type { CallStatus, Refusal } from './refusal.js'

const MAX_KEY_IN_AUDIT = 200
const ASK: ApprovalMode = { mode: 'ask' }

/** The key as audited and shown in refusals: bounded, whatever a caller sends. */
export function shownKey(key: unknown): string {
  return typeof key === 'string' ? key.slice(0, MAX_KEY_IN_AUDIT) : String(key)
}

/** The declared values a call runs with. */
export interface Connected {
  secrets: ReadonlyMap<string, string>
  settings: ReadonlyMap<string, string>
}

/** The call a nested `ctx.invoke` comes from. */
export interface CallParent {
  callId: string
  depth: number
  /** Secret values the parent was given: a child that receives one (in its input, say) must not record it either. */
  scrub: ReadonlySet<string>
}

export interface CallStart {
  id: string
  startedAt: number
  traceId: string | null
  /** The key as asked, and as audited (`shownKey`). */
  key: string
  shownKey: string
  input: unknown
  options: InvokeOptions
  parent: CallParent | null
}

/**
 * One call's state as it passes the stages (`stages/`), each of which fills in what it decides.
 * It becomes an audit row only where it is recorded (`toAuditRow`).
 */
export class Call {
  readonly id: string
  readonly startedAt: number
  readonly traceId: string | null
  readonly key: string
  readonly shownKey: string
  /** As sent (`{}` when absent); `value` is what the skill's schema made of it. */
  readonly input: unknown
  readonly options: InvokeOptions
  readonly caller: Caller
  readonly approval: ApprovalMode
  readonly parent: CallParent | null
  /** Secret values found in the input while redacting it. */
  readonly secrets = new Set<string>()
  /** Secret values given to the executor (or to its parent): scrubbed from what the caller gets back, too. */
  readonly injected: Set<string>
  /** When the executor's deadline ends the call (epoch ms), once dispatched. */
  deadlineAt: number | null = null

  // resolve
  /** The input as audited (redacted); undefined when it is not JSON. */
  inputJson: string | undefined = undefined
  agentId: string | null = null
  /** Set by resolve; the stages after it rely on it. */
  skill!: Skill
  edge: EdgeInfo | null = null
  // validate input
  value: unknown = undefined
  // connect, and again after the gate
  present!: Connected
  /** The values the executor reads, once the call has passed the gate. */
  opened: Connected | null = null
  // track
  cancel: CallCancel | undefined = undefined
  ctx!: SkillContext
  // gate
  approvalId: string | null = null
  grantId: string | null = null
  // dispatch, validate output
  output: unknown = undefined
  /** Why a stage stopped the call; null while it goes on (and when it ends ok). */
  refusal: Refusal | null = null
  /** The running row once it is committed; the final row is made from it. */
  row: AuditRow | null = null
  // finish
  status: CallStatus | 'running' = 'running'
  finishedAt: number | null = null
  /** The result as stored: JSON, redacted, cut at the configured size. */
  result: string | null = null
  resultTruncated = false
  errorCode: string | null = null
  errorMessage: string | null = null
  /** What happened inside the call that is no audit row of its own (a relay, a remote call): kept with its final row. */
  readonly spans: SubSpan[] = []

  constructor(start: CallStart) {
    this.id = start.id
    this.startedAt = start.startedAt
    this.traceId = start.traceId
    this.key = start.key
    this.shownKey = start.shownKey
    this.input = start.input
    this.options = start.options
    this.caller = start.options.caller
    this.approval = start.options.approval ?? ASK
    this.parent = start.parent
    this.injected = new Set(start.parent?.scrub)
  }

  get conversationId(): string | null {
    return this.options.conversationId ?? null
  }

  /** The person an agent acts for, whose role and policies limit the call too. */
  get behalf(): Extract<Caller, { kind: 'user' }> | null {
    const onBehalfOf = this.options.onBehalfOf
    return onBehalfOf?.kind === 'user' ? onBehalfOf : null
  }

  /** What the skill logs is scrubbed of both: its secret inputs and the secrets it was given. */
  scrub(): ReadonlySet<string> {
    const { secrets, injected } = this
    return secrets.size === 0 ? injected : injected.size === 0 ? secrets : new Set([...secrets, ...injected])
  }

  /** Scrub a secret the executor was given, in the forms a client library sends it or a service echoes it. */
  conceal(value: string): void {
    for (const form of secretForms(value)) this.injected.add(form)
  }
}
