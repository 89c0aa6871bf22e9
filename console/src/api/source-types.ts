// Shapes of GET /api/sources, POST /api/sources/reload and the secrets and settings listings.
export interface Finding {
  file: string
  line: number
  severity: 'error' | 'warning'
  message: string
}

export interface McpServer {
  name: string
  transport: 'stdio' | 'http'
  target: string
  state: string
  reason: string | null
  connectedAt: string | null
  retryAt: string | null
  stderr: string | null
  skills: string[]
  problems: string[]
}

export interface OpenApiSource {
  name: string
  spec: string
  baseUrl: string | null
  state: 'loaded' | 'failed'
  skills: string[]
  problems: string[]
}

export interface SourcesReport {
  mcp: McpServer[]
  http: { skills: string[]; problems: string[] }
  openapi: OpenApiSource[]
  packs: { dirs: string[]; skills: string[]; findings: Finding[] }
  instructions: { dirs: string[]; skills: string[]; findings: Finding[] }
}

export interface ReloadReport {
  added: string[]
  removed: string[]
  packs: string[]
  findings: Finding[]
  mcp: McpServer[]
  openapi: OpenApiSource[]
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
