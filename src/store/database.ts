import type { Generated } from 'kysely'
import type { StatsColumn } from './call-stats.js'

/** Timestamps are ISO-8601 UTC strings (fixed width, so text order is time order) on both dialects. */
export interface SkillsTable {
  key: string
  source: string
  origin: string
  class: string
  scope: string
  category: string
  code_title: string
  code_description: string
  code_tags: string
  title_override: string | null
  description_override: string | null
  system_prompt: string | null
  tags_override: string | null
  /** Set by an admin to raise the class above the declared one. */
  class_override: string | null
  enabled: number
  /** 1 while the registry has an executor for this row. */
  present: number
  created_at: string
  updated_at: string
  /** Who may see the skill, as JSON `{ visibility, agents | users }`; null: everyone (migration 0022). */
  sharing: string | null
  /** The risk findings its install or upload found, a JSON array; null: none recorded (migration 0022). */
  risks: string | null
  /** The change_versions version of the write that last touched this row (migration 0019). */
  change_seq: Generated<number | string>
}

export interface AgentsTable {
  id: string
  name: string
  aliases: string
  description: string
  /** 1 when the current config declares this agent. */
  declared: number
  created_at: string
  updated_at: string
  change_seq: Generated<number | string>
}

export interface BindingsTable {
  agent_id: string
  skill_key: string
  created_at: string
  change_seq: Generated<number | string>
}

/** A deleted catalog row (skills, agents, bindings) and the version of its delete: what another manager drops. */
export interface CatalogDeletionsTable {
  table_name: string
  /** The skill's key, the agent's id, or the binding's agent id. */
  id: string
  /** The binding's skill; empty for skills and agents. */
  skill_key: string
  change_seq: number | string
}

export interface ApiKeysTable {
  id: string
  name: string
  /** viewer, operator, admin or agent; null: the key follows its user's roles (migration 0024). */
  role: string | null
  agent_id: string | null
  /** The user the key belongs to. */
  user_id: string
  key_hash: string
  created_at: string
  revoked_at: string | null
}

/** A person (or a service an agent key stands for): the identity behind keys (migration 0024). */
export interface UsersTable {
  id: string
  name: string
  display_name: string | null
  /** viewer, operator or admin; null: none granted to the user itself. */
  role: string | null
  /** An identity provider's user: its issuer and subject (unique together); null for local users. */
  issuer: string | null
  subject: string | null
  created_at: string
  disabled_at: string | null
}

/** A console sign-in at the identity provider in progress, by the hash of its state (migration 0025). */
export interface SignInsTable {
  state_hash: string
  code_verifier: string
  nonce: string
  /** The console path to return to. */
  return_to: string
  created_at: string
  expires_at: string
}

/** A person's (or the service account's, subject '') OAuth connection to a provider, tokens sealed (migration 0032). */
export interface OAuthConnectionsTable {
  provider: string
  subject: string
  /** The TokenSet as JSON, sealed with the secrets key and bound to (provider, subject). */
  sealed: string
  /** Granted scopes, space-separated. */
  scopes: string
  expires_at: string | null
  status: string
  reason: string | null
  version: number
  refreshing_until: string | null
  connected_at: string
  connected_by: string
  updated_at: string
}

/** An authorization flow started and not yet called back, by its state's hash (migration 0032). */
export interface OAuthStatesTable {
  state_hash: string
  provider: string
  subject: string
  scopes: string
  /** The flow's checks (a PKCE verifier) as JSON, sealed. */
  checks: string
  return_to: string
  /** Who asked for the link. */
  created_by: string
  created_at: string
  expires_at: string
}

/** A client registration skillplane made at a provider (RFC 7591), sealed (migration 0032). */
export interface OAuthClientsTable {
  provider: string
  sealed: string
  updated_at: string
}

/** A console session, by the hash of its cookie's token (migration 0025). */
export interface SessionsTable {
  id: string
  token_hash: string
  user_id: string
  /** Sent back by the console with every change (CSRF). */
  csrf_token: string
  created_at: string
  expires_at: string
  revoked_at: string | null
}

/** A Streamable HTTP session of /mcp (migration 0038); times in milliseconds since the epoch (strings from PostgreSQL). */
export interface McpSessionsTable {
  id: string
  /** The API key that opened it (or the caller's id without one): only that key may use it. */
  key_id: string
  role: string
  conversation_id: string
  /** The client's initialize request parameters (JSON): protocol version, capabilities, client info. */
  initialize: string
  /** The level its client set with logging/setLevel; null until it sets one. */
  log_level: string | null
  /** The id of the manager serving it; null once that manager stopped cleanly. */
  holder: string | null
  created_at: number | string
  last_used: number | string
}

/** A server-sent event of a session's stream, kept for replay after Last-Event-ID. */
export interface McpEventsTable {
  id: Generated<number | string>
  session_id: string
  stream_id: string
  /** The JSON-RPC message (JSON), sealed with the secrets key bound to its session; null for a priming event. */
  message: string | null
  /** The length of `message` as stored. */
  bytes: Generated<number | string>
  created_at: number | string
}

export interface GroupsTable {
  id: string
  name: string
  role: string | null
  created_at: string
}

export interface GroupMembersTable {
  group_id: string
  user_id: string
  created_at: string
}

/** Who called, asked or decided, beyond caller_id: the user, the name to show, how they authenticated, the key (migration 0024). */
interface CallerIdentityColumns {
  caller_user_id: string | null
  caller_display_name: string | null
  /** key (later session, token); null: in-process (the library, the local CLI). */
  caller_auth: string | null
  caller_key_id: string | null
}

export interface AuditCallsTable extends CallerIdentityColumns {
  call_id: string
  parent_call_id: string | null
  skill_key: string
  caller_id: string
  caller_name: string
  caller_kind: string
  caller_role: string
  agent_id: string | null
  conversation_id: string | null
  edge_id: string | null
  edge_name: string | null
  manager_id: string
  input: string
  result: string | null
  result_truncated: number
  error_code: string | null
  error_message: string | null
  status: string
  started_at: string
  finished_at: string | null
  duration_ms: number | null
  approval_id: string | null
  /** The OpenTelemetry trace the call belongs to, when a tracer is registered. */
  trace_id: string | null
  /** The conversation grant that let the call run without a request of its own (migration 0020). */
  grant_id: string | null
  /** The call another skillplane says made this one, over MCP: a link shown in trees, never trusted (migration 0035). */
  origin_call_id: string | null
  /** JSON `SubSpan[]`: what happened inside the call that is no audit row (an approval wait, a relay, a remote call; migration 0035). */
  spans: string | null
}

/** The health views' rollup (migration 0036): counters per dimension value and time bucket; see call-stats.ts. */
export type CallStatsTable = {
  dim: string
  value: string
  /** m, h or d: the bucket is that many leading characters of an ISO time. */
  grain: string
  bucket: string
} & Record<StatsColumn, number>

export interface ManagersTable {
  id: string
  hostname: string
  pid: number
  started_at: string
  heartbeat_at: string
}

export interface PoliciesTable {
  id: string
  /** A skill key, or "*" for every skill. */
  skill_key: string
  level: string
  /** "*" for the global level; else an agent id, role or key id/name. */
  subject: string
  decision: string
  created_by: string
  created_at: string
}

export interface ApprovalsTable extends CallerIdentityColumns {
  id: string
  skill_key: string
  class: string
  /** The input as audited (secrets redacted); input_hash binds the exact input. */
  input: string
  input_hash: string
  caller_id: string
  caller_name: string
  caller_kind: string
  agent_id: string | null
  conversation_id: string | null
  call_id: string
  reason: string
  approvals_required: number
  approver_role: string
  sop_required: number
  status: string
  created_at: string
  expires_at: string
  decided_at: string | null
  executed_call_id: string | null
  /** HMAC binding id, skill, input hash and requirements under the server secret. */
  seal: string
  /** The person who had an agent make the call (an agent run): they may not approve it. */
  on_behalf_of_id: string | null
  on_behalf_of_name: string | null
  /** The edge a host-scope call runs on: the approval holds for that edge only. */
  edge_id: string | null
  edge_name: string | null
}

export interface ApprovalDecisionsTable {
  id: string
  approval_id: string
  approver_id: string
  approver_name: string
  approver_role: string
  approver_display_name: string | null
  approver_auth: string | null
  approver_key_id: string | null
  decision: string
  comment: string | null
  sop_id: string | null
  sop_hash: string | null
  created_at: string
  seal: string
}

/** A conversation grant: calls like the approved one run without a new request until it expires or is revoked. */
export interface ApprovalGrantsTable {
  id: string
  /** The approved request the grant came from. */
  approval_id: string
  skill_key: string
  agent_id: string | null
  conversation_id: string
  /** Who made the request (a person's user, or an agent key): only their calls are covered. */
  caller_id: string
  caller_name: string
  on_behalf_of_id: string | null
  on_behalf_of_name: string | null
  edge_id: string | null
  edge_name: string | null
  granted_by_id: string
  granted_by_name: string
  created_at: string
  expires_at: string
  revoked_at: string | null
  revoked_by_id: string | null
  revoked_by_name: string | null
  /** HMAC over what the grant covers and until when, under the approval secret. */
  seal: string
}

export interface SopsTable {
  id: string
  title: string
  skills: string
  document: string
  hash: string
  signature: string
  key_name: string
  registered_by: string
  registered_at: string
  revoked_at: string | null
}

/** A revoked SOP revision: its content hash can never be registered or cited again. */
export interface SopRevocationsTable {
  hash: string
  sop_id: string
  revoked_at: string
}

export interface AuditEventsTable {
  id: string
  kind: string
  subject: string
  actor_id: string
  actor_name: string
  call_id: string | null
  details: string
  created_at: string
}

export interface SettingsTable {
  key: string
  value: string
}

export interface SkillActivationsTable {
  conversation_id: string
  skill_name: string
  caller_id: string
  call_id: string
  activated_at: string
}

/** The last tool list each MCP server answered, so its skills stay known while it is down. */
export interface McpToolsTable {
  server: string
  /** JSON array of the server's tools as listed. */
  tools: string
  listed_at: string
}

/** An agent run: the conversation so far (for resuming) and where it stands. */
export interface AgentRunsTable {
  id: string
  agent_id: string
  requester_id: string
  requester_name: string
  /** user or agent */
  requester_kind: string
  /** A user requester's role, so their limits apply to the run's calls. */
  requester_role: string | null
  /** running, awaiting_approval, completed or failed */
  status: string
  prompt: string
  output: string | null
  error: string | null
  trace_id: string | null
  /** JSON ModelMessage[] after the system prompt. */
  messages: string
  /** JSON of the tool calls waiting for approval while awaiting_approval. */
  pending: string | null
  /** 1 for a test run. */
  test: number
  /** JSON of a test run's in-memory config changes. */
  overrides: string | null
  /** The manager driving it while running. */
  manager_id: string | null
  /** Model steps used so far, across pauses: maxSteps bounds the whole run. */
  model_steps: number
  created_at: string
  updated_at: string
  finished_at: string | null
  /** Totals over the run's model steps (migration 0034), added to as each step finishes. */
  input_tokens: Generated<number>
  output_tokens: Generated<number>
  cached_input_tokens: Generated<number>
  /** Null until a model step has a cost (its model has pricing and reported usage). */
  cost_usd: number | null
  model_ms: Generated<number>
  /** Time the run's tool calls took, from their audit rows. */
  tool_ms: Generated<number>
  /** Time spent paused for a person (an approval, a connection), counted when the run resumes. */
  approval_wait_ms: Generated<number>
  /** When the run paused, while it waits. */
  paused_at: string | null
}

/** A person's input a run's tool call waits for (an MCP elicitation), and its answer once decided. */
export interface RunInputsTable {
  id: string
  run_id: string
  tool_call_id: string | null
  tool_name: string | null
  /** The run step that shows it. */
  step_idx: number | null
  /** The manager holding the call that waits. */
  manager_id: string
  /** form or url */
  mode: string
  message: string
  /** JSON: the form's schema (form mode). */
  requested_schema: string | null
  url: string | null
  /** pending, accepted, declined, cancelled, expired or gone (the manager holding the call stopped). */
  status: string
  /** JSON: an accepted form's content. */
  content: string | null
  answered_by_id: string | null
  answered_by_name: string | null
  created_at: string
  expires_at: string
  decided_at: string | null
}

/** One step of a run: text the model wrote, or one tool call with its outcome and audit row. */
export interface AgentRunStepsTable {
  run_id: string
  idx: number
  kind: string
  text: string | null
  tool_name: string | null
  tool_call_id: string | null
  input: string | null
  output: string | null
  error: string | null
  status: string | null
  call_id: string | null
  approval_id: string | null
  created_at: string
  /** The run-wide number of the write that last stored or changed this step (migration 0021). */
  rev: number
  /** Migration 0034: when the step started and finished (a tool call's from its audit row). */
  started_at: string | null
  finished_at: string | null
  duration_ms: number | null
  /** A model step (kind `model`): its number among the run's model steps, from 1. */
  step_number: number | null
  model_provider: string | null
  model_id: string | null
  input_tokens: number | null
  output_tokens: number | null
  cached_input_tokens: number | null
  cache_write_tokens: number | null
  reasoning_tokens: number | null
  cost_usd: number | null
  finish_reason: string | null
  first_chunk_ms: number | null
  /** JSON: the request the model was sent, redacted, as a change on the run's previous model request (see model-request.ts). */
  request: string | null
}

export interface EdgesTable {
  id: string
  name: string
  /** JSON object of string labels. */
  labels: string
  token_hash: string
  /** When the token stops working; null: never (until rotated or revoked). */
  token_expires_at: string | null
  created_by: string
  created_at: string
  revoked_at: string | null
  hostname: string | null
  os: string | null
  arch: string | null
  version: string | null
  /** JSON array of the skills it last offered. */
  skills: string
  /** JSON array of the secret names an admin granted it (calls of its packs may carry those). */
  secrets: string
  /** The manager holding its connection; null while it is offline. */
  manager_id: string | null
  connected_at: string | null
  last_seen_at: string | null
}

/** A call for an edge that another manager holds, relayed through the database. */
export interface EdgeCallsTable {
  id: string
  edge_id: string
  /** The manager holding the edge's connection, which runs the call. */
  holder_id: string
  /** The manager whose pipeline made the call, which waits for the result. */
  caller_manager_id: string
  skill_key: string
  input: string
  timeout_ms: number
  /** pending → taken → done, or cancelled. */
  state: string
  /** The edge's answer as JSON, once done. */
  result: string | null
  /** Sealed with the secrets key, bound to the call id; null when the call carries none. */
  secrets: string | null
  created_at: string
}

/** A request that led to a call of a skill: discovery's usage evidence. */
export interface DiscoveryExamplesTable {
  id: string
  skill_key: string
  query: string
  created_at: string
  /** The manager that learned it (none on rows from before migration 0031). */
  manager_id: string | null
}

/** Learned: `to_key` called after `from_key` in one conversation, `weight` times. */
export interface SkillRelationsTable {
  from_key: string
  to_key: string
  weight: number
  updated_at: string
}

/** A skill's text embedding for one model; re-embedded when the text's hash changes. */
export interface SkillEmbeddingsTable {
  skill_key: string
  model: string
  text_hash: string
  /** JSON array of numbers. */
  vector: string
}

/** A secret or setting as stored: `sealed` is AES-256-GCM ciphertext, never the value. */
export interface ConnectionValuesTable {
  kind: string
  name: string
  scope: string
  subject: string
  version: number
  sealed: string
  updated_at: string
  updated_by: string
}

/** A value in shared memory: JSON text in a named pool, gone after expires_at (null: never). */
export interface MemoryEntriesTable {
  pool: string
  key: string
  value: string
  bytes: number
  expires_at: string | null
  updated_at: string
  updated_by: string
}

/** A note a skill left for later calls; `importance` holds as of `importance_at` and decays from there. */
export interface LearningsTable {
  id: string
  /** discovery or pattern */
  category: string
  title: string
  content: string
  /** JSON array of strings. */
  tags: string
  importance: number
  importance_at: string
  /** active or deprecated */
  status: string
  /** null, verified or disproved (by an admin) */
  verification: string | null
  skill_key: string | null
  agent_id: string | null
  call_id: string | null
  caller_id: string
  caller_name: string
  created_at: string
  updated_at: string
}

/** A learning given to a conversation (an agent run): reinforced when that run succeeds. */
export interface LearningUsesTable {
  conversation_id: string
  learning_id: string
  used_at: string
}

/** A periodic job one manager took: nobody takes it again before due_at. */
export interface LeasesTable {
  name: string
  holder: string
  taken_at: string
  due_at: string
}

/** A version per watched table, bumped by a trigger on every write (migration 0017). */
export interface ChangeVersionsTable {
  name: string
  version: number | string | bigint
}

export interface Database {
  change_versions: ChangeVersionsTable
  catalog_deletions: CatalogDeletionsTable
  memory_entries: MemoryEntriesTable
  learnings: LearningsTable
  learning_uses: LearningUsesTable
  leases: LeasesTable
  connection_values: ConnectionValuesTable
  discovery_examples: DiscoveryExamplesTable
  skill_relations: SkillRelationsTable
  skill_embeddings: SkillEmbeddingsTable
  edges: EdgesTable
  edge_calls: EdgeCallsTable
  agent_runs: AgentRunsTable
  agent_run_steps: AgentRunStepsTable
  run_inputs: RunInputsTable
  mcp_tools: McpToolsTable
  skill_activations: SkillActivationsTable
  settings: SettingsTable
  policies: PoliciesTable
  approvals: ApprovalsTable
  approval_decisions: ApprovalDecisionsTable
  approval_grants: ApprovalGrantsTable
  sops: SopsTable
  sop_revocations: SopRevocationsTable
  audit_events: AuditEventsTable
  skills: SkillsTable
  agents: AgentsTable
  bindings: BindingsTable
  api_keys: ApiKeysTable
  users: UsersTable
  sign_ins: SignInsTable
  oauth_connections: OAuthConnectionsTable
  oauth_states: OAuthStatesTable
  oauth_clients: OAuthClientsTable
  sessions: SessionsTable
  mcp_sessions: McpSessionsTable
  mcp_events: McpEventsTable
  groups: GroupsTable
  group_members: GroupMembersTable
  audit_calls: AuditCallsTable
  call_stats: CallStatsTable
  managers: ManagersTable
}

export type { Generated }
