import { READY_CONNECTION, type Skill, type Caller, type ConnectionState, type JsonSchema } from '../skill/index.js'
import type { CatalogReader } from './catalog.js'
import { sharingView, type SharingView } from './skill-sharing.js'
import type { RiskFinding } from './skill-risks.js'

export interface SkillSummary {
  key: string
  title: string
  description: string
  /** In effect: the declared class or an admin's raise of it. */
  class: Skill['class']
  declaredClass: Skill['class']
  scope: Skill['scope']
  category: string
  tags: string[]
  source: Skill['source']
  enabled: boolean
  /** Whether a call could run now: enabled, and for host scope an online edge offering it. */
  available: boolean
  /** Why not, when it is not. */
  unavailableReason: string | null
  /** Whether the secrets and settings it needs are set for the caller listing it, and which are missing. */
  connection: ConnectionState
  agents: string[]
}

export interface SkillDetail extends SkillSummary {
  slug: string
  toolName: string
  origin: string
  timeoutMs: number
  systemPrompt: string | null
  inputSchema: JsonSchema
  outputSchema: JsonSchema | null
  examples: Skill['examples']
  /** The secrets and settings it declares, by name. */
  needs: { secrets: string[]; settings: string[] }
  /** Catalog overrides in effect, so an operator sees where a value comes from. */
  overrides: CatalogOverrides
  /** Who may see it (the names only for admins). */
  sharing: SharingView
  /** What scanning its files found when it was installed or uploaded. */
  risks: RiskFinding[]
}

/** Which catalog fields an admin has set over what the skill's source declares. */
export interface CatalogOverrides {
  title: boolean
  description: boolean
  tags: boolean
  class: boolean
}

export function catalogOverrides(catalog: CatalogReader, key: string): CatalogOverrides {
  const row = catalog.row(key)
  return {
    title: row?.title_override != null,
    description: row?.description_override != null,
    tags: row?.tags_override != null,
    class: row?.class_override != null,
  }
}

/** The effective view of a skill: code metadata with catalog overrides applied, and its connection state for the viewer. */
export function skillSummary(skill: Skill, catalog: CatalogReader, connection: ConnectionState = READY_CONNECTION): SkillSummary {
  const row = catalog.row(skill.key)
  const enabled = catalog.isEnabled(skill.key)
  // Fields one by one, not spread: this runs for every skill of every listing.
  const { available, unavailableReason } = availability(enabled, skill)
  return {
    key: skill.key,
    title: row?.title_override ?? skill.title,
    description: row?.description_override ?? skill.description,
    class: skill.class,
    declaredClass: skill.declaredClass,
    scope: skill.scope,
    category: skill.category,
    tags: row?.tags_override ? (JSON.parse(row.tags_override) as string[]) : skill.tags,
    source: skill.source,
    enabled,
    available,
    unavailableReason,
    connection,
    agents: catalog.agentsBoundTo(skill.key),
  }
}

/** Whether a call could run now; a host-scope skill's check asks the edges offering it. */
export function availability(enabled: boolean, skill: Pick<Skill, 'unavailable'>): { available: boolean; unavailableReason: string | null } {
  if (!enabled) return { available: false, unavailableReason: 'disabled in the catalog' }
  let down: string | null
  try {
    down = skill.unavailable()
  } catch (error) {
    down = `its availability check failed: ${(error as Error).message}`
  }
  return { available: down === null, unavailableReason: down }
}

/** With a caller, the input schema is the one that caller sees (an enum of what it may name, say). */
export function skillDetail(skill: Skill, catalog: CatalogReader, caller?: Caller, connection?: ConnectionState): SkillDetail {
  const row = catalog.row(skill.key)
  return {
    ...skillSummary(skill, catalog, connection),
    slug: skill.slug,
    toolName: skill.toolName,
    origin: skill.origin,
    timeoutMs: skill.timeoutMs,
    systemPrompt: row?.system_prompt ?? null,
    inputSchema: caller ? skill.inputSchemaFor({ caller, agent: caller.kind === 'agent' ? caller.agentId : null }) : skill.input.jsonSchema,
    outputSchema: skill.output?.jsonSchema ?? null,
    examples: skill.examples,
    needs: { secrets: [...skill.secrets], settings: [...skill.settings] },
    overrides: catalogOverrides(catalog, skill.key),
    sharing: sharingView(catalog.sharing(skill.key), caller),
    risks: catalog.risks(skill.key),
  }
}
