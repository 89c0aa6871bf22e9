import type { components } from './schema'

// Shapes the OpenAPI document names as components come from it; the rest mirror the server's views.
export type SkillSummary = components['schemas']['SkillSummary'] & {
  key: string
  title: string
  description: string
  class: SkillClass
  scope: 'manager' | 'host'
  source: string
  available: boolean
  unavailableReason: string | null
  agents: string[]
  connection?: ConnectionState
}
export type AuditEntry = components['schemas']['AuditEntry']

export type SkillClass = 'safe' | 'mutating' | 'dangerous'
export type Role = 'viewer' | 'operator' | 'admin'
/** `displayName`: the person's name to show; `auth`: how they signed in (key, session or token). */
export type Caller = ({ kind: 'user'; id: string; name: string; role: Role } | { kind: 'agent'; id: string; name: string; agentId: string }) & {
  displayName?: string
  auth?: 'key' | 'session' | 'token'
}

export interface ConnectionState {
  state: 'ready' | 'needs_auth' | 'needs_input'
  missing?: { secrets?: string[]; settings?: string[] }
}

interface DetailCommon extends SkillSummary {
  /** Which catalog fields an admin set over the source's (PATCH /api/skills/{key} with null resets one). */
  overrides: { title: boolean; description: boolean; tags: boolean; class: boolean }
  /** Who may see it: everyone, named agents or named users (the names for admins only). */
  sharing?: { visibility: 'all' | 'agents' | 'users'; agents?: string[]; users?: string[] }
  /** What its files would do that deserves a look (installed and uploaded skills). */
  risks?: RiskFinding[]
}

/** A skill that runs: its schemas and what it needs. */
export interface ExecutableDetail extends DetailCommon {
  toolName: string
  origin: string
  timeoutMs: number
  systemPrompt: string | null
  inputSchema: Record<string, unknown>
  outputSchema: Record<string, unknown> | null
  needs: { secrets: string[]; settings: string[] }
}

/** An instruction skill (a SKILL.md folder): activated by agents, never invoked, so no schemas. */
export interface InstructionDetail extends DetailCommon {
  template: boolean
  /** What loading its SKILL.md found. */
  diagnostics: Array<{ severity: string; message: string; line?: number }>
}

export type SkillDetail = ExecutableDetail | InstructionDetail

export const isExecutable = (skill: SkillDetail): skill is ExecutableDetail => 'inputSchema' in skill

export interface RiskFinding {
  level: 'info' | 'warning' | 'high'
  rule: string
  file: string
  line?: number
  message: string
}

export interface ApprovalView {
  id: string
  skill: string
  class: SkillClass
  input: unknown
  requester: { id: string; name: string; kind: string }
  onBehalfOf: { id: string; name: string } | null
  agent: string | null
  edge: { id: string; name: string } | null
  conversationId: string | null
  callId: string
  reason: string
  approvalsRequired: number
  approverRole: string
  sopRequired: boolean
  status: 'pending' | 'approved' | 'rejected' | 'expired' | 'executed' | 'cancelled'
  createdAt: string
  expiresAt: string
  decidedAt: string | null
  executedCallId: string | null
  decisions: Array<{
    approver: { id: string; name: string; role: string }
    decision: 'approve' | 'reject'
    comment: string | null
    sop: { id: string; hash: string } | null
    createdAt: string
  }>
}

export interface Envelope {
  ok: boolean
  callId?: string
  data?: unknown
  error?: { code: string; message: string; details?: Record<string, unknown> }
}

export interface EdgeView {
  id: string
  name: string
  labels: Record<string, string>
  hostname: string | null
  os: string | null
  online: boolean
  lastSeenAt: string | null
  secrets: string[]
  skills: Array<{ key: string; class: string; available: boolean; unavailableReason: string | null }>
  revokedAt: string | null
}

export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** GET /api/agents: each agent, its model, whether it can run now (and why not), its bound skills. */
export type AgentView = components['schemas']['Agent']

export type RunStatus = 'running' | 'awaiting_approval' | 'completed' | 'failed'

/** One model turn: its text, or one tool call with its outcome. */
export interface RunStep {
  index: number
  kind: 'text' | 'tool'
  text?: string
  tool?: string
  toolCallId?: string
  input?: unknown
  output?: unknown
  error?: string
  status?: string
  callId?: string
  approvalId?: string
}

export interface RunView {
  id: string
  agent: string
  requester: { id: string; name: string }
  status: RunStatus
  prompt: string
  output: string | null
  error: string | null
  traceId: string | null
  test: boolean
  overrides: Record<string, string> | null
  pending: Array<{ toolCallId: string; tool: string; approvalId: string | null }>
  createdAt: string
  updatedAt: string
  finishedAt: string | null
  steps?: RunStep[]
}

export interface TestRunResult {
  output: string | null
  tools: Array<{ name: string; called: boolean; ok: boolean }>
  approvals: Array<{ tool: string; approvalId: string | null }>
  runId: string
  verdict: 'pass' | 'failed' | 'incomplete' | 'unconfirmed'
  reason: string
}

/** GET /api/audit/histogram. */
export interface Histogram {
  bucket: 'minute' | 'hour' | 'day'
  from: string
  to: string
  points: Array<{ at: string; calls: number; failed: number }>
}

/** A signed procedure as GET /api/sops lists it. */
export interface Sop {
  id: string
  title: string
  skills: string[]
  hash: string
  keyName: string
  revokedAt: string | null
}
