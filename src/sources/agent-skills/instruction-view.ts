import {
  type CatalogReader,
  availability,
  catalogOverrides,
  sharingView,
  type CatalogOverrides,
  type RiskFinding,
  type SharingView,
  type SkillSummary,
} from '../../registry/index.js'
import { READY_CONNECTION, type Caller } from '../../skill/index.js'
import type { Finding } from './finding.js'
import type { LibrarySkill } from './instruction-library.js'

export interface InstructionSummary extends SkillSummary {
  folder: string
  template: boolean
  /** Load findings for its SKILL.md. */
  diagnostics: Finding[]
}

/** One instruction skill in full: who may see it, what its files risk, and what admins edited. */
export interface InstructionDetail extends InstructionSummary {
  /** Catalog overrides in effect, as for executable skills (`class` stays false: an instruction skill has none to raise). */
  overrides: CatalogOverrides
  /** Who may see it (the names only for admins). */
  sharing: SharingView
  /** What scanning its files found when it was installed or uploaded. */
  risks: RiskFinding[]
}

// Instructions are text: they are there whenever their row is enabled.
const ALWAYS_AVAILABLE = { scope: 'manager', unavailable: () => null } as const

/** An instruction skill as listed beside executable skills. */
export function instructionSummary(skill: LibrarySkill, catalog: CatalogReader, findings: readonly Finding[]): InstructionSummary {
  const row = catalog.row(skill.name)
  return {
    key: skill.name,
    title: row?.title_override ?? skill.name,
    description: row?.description_override ?? skill.description,
    class: 'safe',
    declaredClass: 'safe',
    scope: 'manager',
    category: 'instructions',
    tags: row?.tags_override ? (JSON.parse(row.tags_override) as string[]) : [],
    source: 'agent-skill',
    enabled: catalog.isEnabled(skill.name),
    ...availability(catalog.isEnabled(skill.name), ALWAYS_AVAILABLE),
    // Instructions need no secrets of their own; the skills they call declare theirs.
    connection: READY_CONNECTION,
    agents: catalog.agentsBoundTo(skill.name),
    folder: skill.dir,
    template: skill.template,
    diagnostics: findings.filter((f) => f.file === skill.file),
  }
}

/** The summary with its catalog overrides, sharing (as `viewer` may see it; in full without one) and risk findings. */
export function instructionDetail(skill: LibrarySkill, catalog: CatalogReader, findings: readonly Finding[], viewer?: Caller): InstructionDetail {
  return {
    ...instructionSummary(skill, catalog, findings),
    overrides: catalogOverrides(catalog, skill.name),
    sharing: sharingView(catalog.sharing(skill.name), viewer),
    risks: catalog.risks(skill.name),
  }
}
