import type { SkillSourceKind } from '../../skill/index.js'
// The file itself, not the folder's face: the face exports the SKILL.md source, which implements this seam.
import type { Finding } from '../agent-skills/finding.js'

/**
 * Where skills come from: code, built-ins, skill packs, SKILL.md folders, HTTP and OpenAPI, MCP
 * servers, edges. Each registers its skills into the registry (never runs them around the
 * pipeline) and reports in the one shape every surface shows.
 */
export interface SkillSource {
  /**
   * Its key in the sources report: the `source` its skills carry (`pack`, `mcp`, …), or `built-in`
   * for the skills the plane adds itself (they carry `code`). One source per kind.
   */
  readonly kind: SkillSourceKind | 'built-in'
  /** Register its skills; sources start in list order, so an earlier one holds a name first. */
  start(): Promise<void>
  /** Load again (folders, documents, tool lists): added, changed and removed skills take effect at once. */
  reload(): Promise<void>
  report(): SourceReport
  close(): Promise<void>
}

/** What one kind of source holds now and what loading it found wrong: the same shape for every kind. */
export interface SourceReport {
  /** The skills it registered (instruction skills by name), sorted. */
  skills: string[]
  /** Each thing configured for it: a folder, a document, a server, an edge. */
  entries: SourceEntry[]
  /** Problems that name a file and a line (a bad SKILL.md, a bad skill.json). */
  findings: Finding[]
}

export interface SourceEntry {
  /** A folder's path, a server's or a document's name, an edge's name. */
  name: string
  /** `loaded` or `failed`; an MCP server's connection state; an edge's `online`, `offline` or `revoked`. */
  state: string
  /** Why it is not working, when it is not (an MCP server that is down). */
  reason: string | null
  skills: string[]
  problems: string[]
  /** What only this kind says about an entry (an MCP server's transport, target and stderr; a document's base URL). */
  details: Record<string, string | null>
}

/** The sources report: one `SourceReport` per kind, keyed by `SkillSource.kind`. */
export type SourcesReport = Record<SkillSource['kind'], SourceReport>
