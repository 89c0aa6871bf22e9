// Shapes of GET /api/sources, POST /api/sources/reload and the secrets and settings listings.
export interface Finding {
  file: string
  line: number
  severity: 'error' | 'warning'
  message: string
}

/** One thing configured for a kind of source: a folder, a document, a server, an edge. */
export interface SourceEntry {
  name: string
  state: string
  /** Why it is not working, when it is not. */
  reason: string | null
  skills: string[]
  problems: string[]
  /** What only this kind says about an entry (an MCP server's transport, target and stderr). */
  details: Record<string, string | null>
}

/** What one kind of source holds and what loading it found wrong: the same shape for every kind. */
export interface SourceReport {
  skills: string[]
  entries: SourceEntry[]
  findings: Finding[]
}

/** One report per kind of source (code, built-in, pack, agent-skill, http, mcp, edge, …). */
export type SourcesReport = Record<string, SourceReport>

export interface ReloadReport {
  added: string[]
  removed: string[]
  sources: SourcesReport
  sync: { dryRun: boolean; changes: unknown[]; warnings: unknown[] }
}

/** A stored secret or setting as listed: never a secret's value (the console shows no values at all). */
export interface ValueInfo {
  kind: 'secret' | 'setting'
  name: string
  scope: 'global' | 'agent' | 'user'
  subject: string | null
  version: number
  updatedAt: string
  updatedBy: string
}
