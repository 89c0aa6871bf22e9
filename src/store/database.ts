import type { Generated } from 'kysely'

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
  enabled: number
  /** 1 while the registry has an executor for this row. */
  present: number
  created_at: string
  updated_at: string
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
}

export interface BindingsTable {
  agent_id: string
  skill_key: string
  created_at: string
}

export interface ApiKeysTable {
  id: string
  name: string
  role: string
  agent_id: string | null
  key_hash: string
  created_at: string
  revoked_at: string | null
}

export interface AuditCallsTable {
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
}

export interface ManagersTable {
  id: string
  hostname: string
  pid: number
  started_at: string
  heartbeat_at: string
}

export interface Database {
  skills: SkillsTable
  agents: AgentsTable
  bindings: BindingsTable
  api_keys: ApiKeysTable
  audit_calls: AuditCallsTable
  managers: ManagersTable
}

export type { Generated }
