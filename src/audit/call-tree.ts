import { runConversation, type TreeApproval, type TreeRows } from '../store/index.js'
import { parseSubSpans, type SubSpan } from './sub-span.js'

/** One bar of a call tree (the HTTP API's `Span`). */
export interface Span {
  id: string
  parentId: string | null
  kind: 'run' | 'model' | 'call' | 'approval' | 'relay' | 'edge' | 'remote' | 'elicitation' | 'sampling'
  name: string
  startedAt: string
  endedAt: string | null
  status: string
  callId?: string
  runId?: string
  stepIndex?: number
  approvalId?: string
  managerId?: string
  edge?: string
  usage?: { inputTokens: number | null; outputTokens: number | null }
  costUsd?: number | null
  /** elicitation: what was asked and what the skill received (scrubbed). */
  elicitation?: { mode: 'form' | 'url'; message: string; action: 'accept' | 'decline' | 'cancel' | null; content?: Record<string, unknown>; error?: string }
  /** sampling: the model's answer (its text capped), or why there was none. */
  sampling?: { model: string | null; stopReason: string | null; text: string | null; error?: string }
}

export interface CallTree {
  rootId: string
  startedAt: string
  endedAt: string | null
  /** Parent before children, siblings by start. */
  spans: Span[]
  truncated: boolean
}

/** At most this many spans in a tree; the rest is cut and the tree says so. */
export const MAX_TREE_SPANS = 2_000

/**
 * Turn a tree's rows into its spans, in tree order. A call hangs under the call that invoked it
 * (`ctx.invoke`), else under the approval it ran with, else under the call another skillplane says
 * made it (MCP), else under its agent run; an approval under the call it refused (or that waited
 * for it: then the wait lies inside the call); a run's model steps under the run.
 */
export function buildCallTree(rows: TreeRows): CallTree {
  const spans: Span[] = []
  const callIds = new Set(rows.calls.map((c) => c.call_id))
  const runConversations = new Map(rows.runs.map((run) => [runConversation(run), run.id]))
  const approvalOf = new Map<string, TreeApproval>()
  for (const approval of rows.approvals) {
    // Ask mode: the call that ran on the approval comes after it. Wait mode: it is the call that waited.
    if (approval.executed_call_id !== null && approval.executed_call_id !== approval.call_id) approvalOf.set(approval.executed_call_id, approval)
  }
  for (const run of rows.runs) {
    spans.push({
      id: `run:${run.id}`,
      parentId: null,
      kind: 'run',
      name: run.agent_id,
      startedAt: run.created_at,
      endedAt: run.finished_at,
      status: run.status,
      runId: run.id,
    })
  }
  for (const step of rows.modelSteps) {
    spans.push({
      id: `model:${step.run_id}:${step.idx}`,
      parentId: `run:${step.run_id}`,
      kind: 'model',
      name: step.model ?? 'model',
      startedAt: step.started_at,
      endedAt: step.finished_at,
      status: step.status ?? 'ok',
      runId: step.run_id,
      stepIndex: step.idx,
      usage: { inputTokens: step.input_tokens, outputTokens: step.output_tokens },
      costUsd: step.cost_usd,
    })
  }
  for (const approval of rows.approvals) {
    if (!callIds.has(approval.call_id)) continue
    spans.push({
      id: `approval:${approval.id}`,
      parentId: `call:${approval.call_id}`,
      kind: 'approval',
      name: approval.skill_key,
      startedAt: approval.created_at,
      endedAt: approval.decided_at ?? (approval.status === 'expired' ? approval.expires_at : null),
      status: approval.status,
      approvalId: approval.id,
      callId: approval.call_id,
    })
  }
  for (const call of rows.calls) {
    const id = `call:${call.call_id}`
    const approval = approvalOf.get(call.call_id)
    const run = call.conversation_id === null ? undefined : runConversations.get(call.conversation_id)
    const parentId =
      call.parent_call_id !== null && callIds.has(call.parent_call_id)
        ? `call:${call.parent_call_id}`
        : approval && callIds.has(approval.call_id)
          ? `approval:${approval.id}`
          : call.origin_call_id !== null && callIds.has(call.origin_call_id)
            ? `call:${call.origin_call_id}`
            : run !== undefined
              ? `run:${run}`
              : null
    const ended = call.status === 'running' ? null : call.finished_at
    spans.push({ id, parentId, kind: 'call', name: call.skill_key, startedAt: call.started_at, endedAt: ended, status: call.status, callId: call.call_id })
    parseSubSpans(call.spans).forEach((sub, i) => {
      if (sub.kind === 'relay') {
        spans.push({
          id: `relay:${call.call_id}`,
          parentId: id,
          kind: 'relay',
          name: `manager ${sub.holder}`,
          startedAt: sub.from,
          endedAt: sub.to,
          status: call.status,
          callId: call.call_id,
          managerId: sub.holder,
          edge: sub.edge,
        })
        if (sub.taken !== null) {
          spans.push({
            id: `edge:${call.call_id}`,
            parentId: `relay:${call.call_id}`,
            kind: 'edge',
            name: `edge ${sub.edge}`,
            startedAt: sub.taken,
            endedAt: sub.answered,
            status: call.status,
            callId: call.call_id,
            managerId: sub.holder,
            edge: sub.edge,
          })
        }
      } else if (sub.kind === 'elicitation' || sub.kind === 'sampling') {
        spans.push(askedOfCaller(sub, `${sub.kind}:${call.call_id}:${i}`, id, call.call_id))
      } else if (!callIds.has(sub.callId)) {
        // On the same database the remote call is a row of the tree already (through its origin).
        spans.push({
          id: `remote:${call.call_id}:${i}`,
          parentId: id,
          kind: 'remote',
          name: `${sub.server} ${sub.callId}`,
          startedAt: sub.from,
          endedAt: sub.to,
          status: call.status,
          callId: sub.callId,
        })
      }
    })
  }
  return order(rows.rootId, spans, rows.truncated)
}

const ELICITATION_STATUS = { accept: 'accepted', decline: 'declined', cancel: 'cancelled' } as const

/** A question the call put to its caller: the person's answer (elicitation) or the model's (sampling). */
function askedOfCaller(sub: Extract<SubSpan, { kind: 'elicitation' | 'sampling' }>, id: string, parentId: string, callId: string): Span {
  const failed = sub.error !== undefined
  const times = { startedAt: sub.from, endedAt: sub.to }
  if (sub.kind === 'sampling') {
    const { model, stopReason, text, error } = sub
    const sampling = { model, stopReason, text, ...(error !== undefined && { error }) }
    return { id, parentId, kind: 'sampling', name: model ?? 'sampling', ...times, status: failed ? 'error' : 'ok', callId, sampling }
  }
  const { mode, message, action, content, error } = sub
  const status = failed || action === null ? 'error' : ELICITATION_STATUS[action]
  const name = mode === 'url' ? `link: ${message}` : message
  const elicitation = { mode, message, action, ...(content !== undefined && { content }), ...(error !== undefined && { error }) }
  return { id, parentId, kind: 'elicitation', name: name.length > 80 ? `${name.slice(0, 79)}…` : name, ...times, status, callId, elicitation }
}

/** Parent before children, siblings by start: a walk from the root; a span whose parent is gone (cut off) hangs from the root. */
function order(rootId: string, spans: Span[], truncated: boolean): CallTree {
  const byId = new Map(spans.map((s) => [s.id, s]))
  const children = new Map<string, Span[]>()
  for (const span of spans) {
    if (span.id === rootId) {
      span.parentId = null
      continue
    }
    if (span.parentId === null || !byId.has(span.parentId)) span.parentId = rootId
    const siblings = children.get(span.parentId)
    if (siblings) siblings.push(span)
    else children.set(span.parentId, [span])
  }
  const root = byId.get(rootId)
  const ordered: Span[] = []
  const seen = new Set<string>()
  const stack = root ? [root] : []
  while (stack.length > 0 && ordered.length < MAX_TREE_SPANS) {
    const span = stack.pop()!
    if (seen.has(span.id)) continue
    seen.add(span.id)
    ordered.push(span)
    const kids = children.get(span.id)
    if (kids) stack.push(...kids.sort(byStart).reverse())
  }
  let endedAt: string | null = ordered[0]?.endedAt ?? null
  for (const span of ordered) {
    if (span.endedAt === null) {
      endedAt = null
      break
    }
    if (endedAt !== null && span.endedAt > endedAt) endedAt = span.endedAt
  }
  const startedAt = ordered.reduce((min, s) => (s.startedAt < min ? s.startedAt : min), ordered[0]?.startedAt ?? '')
  return { rootId, startedAt, endedAt, spans: ordered, truncated: truncated || ordered.length < spans.length }
}

const byStart = (a: Span, b: Span) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The tree as a viewer may see it: a span it may not see keeps its place, times and status (the
 * tree's shape stays true) and loses everything that names or identifies it.
 */
export function hideSpans(tree: CallTree, mayShow: (span: Span) => boolean): CallTree {
  const renamed = new Map<string, string>()
  const spans = tree.spans.map((span, i): Span => {
    const parentId = span.parentId === null ? null : (renamed.get(span.parentId) ?? span.parentId)
    if (mayShow(span)) return parentId === span.parentId ? span : { ...span, parentId }
    const id = `hidden:${i}`
    renamed.set(span.id, id)
    return { id, parentId, kind: span.kind, name: 'hidden', startedAt: span.startedAt, endedAt: span.endedAt, status: span.status }
  })
  return { ...tree, rootId: renamed.get(tree.rootId) ?? tree.rootId, spans }
}
