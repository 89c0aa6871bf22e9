export type { ConnectionState, ConnectionStateName } from '../skill/index.js'
export type ValueKind = 'secret' | 'setting'
export type ValueScope = 'global' | 'agent' | 'user'

/** Whose value to set or delete: the agent (id) or the user (name); neither for the global value. */
export interface ValueOwner {
  agent?: string | null
  user?: string | null
}

/** Who a call is resolved for: user values win over agent values, agent values over global ones. */
export interface Subjects {
  agent: string | null
  user: string | null
}

/** What a skill needs before it can run: secrets (credentials) and settings (plain values). */
export interface ConnectionNeeds {
  secrets: readonly string[]
  settings: readonly string[]
  /** Global values the skill's source itself waits for (an MCP server's header secret). */
  awaiting?: () => { secrets?: string[]; settings?: string[] } | null
}

/** A stored value as listings show it: a setting's value is shown, a secret's never. */
export interface ConnectionValueInfo {
  kind: ValueKind
  name: string
  scope: ValueScope
  /** The agent id or user name; null for the global value. */
  subject: string | null
  version: number
  updatedAt: string
  updatedBy: string
  /** Settings only. */
  value?: string
}

export const MAX_VALUE_BYTES = 65_536
