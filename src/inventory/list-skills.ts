import { READY_CONNECTION, type Caller, type ConnectionState, type Skill } from '../skill/index.js'
import { type Registry, type CatalogReader, skillSummary, type SkillSummary, availability } from '../registry/index.js'
import { canSee } from '../access/index.js'
import { type InstructionLibrary, instructionSummary, type InstructionSummary } from '../sources/agent-skills/index.js'

/** What a skill listing reads (a plane's `skills` is one): every executable skill, the catalog, the instruction skills. */
export interface InventorySources extends Pick<Registry, 'list'>, CatalogReader {
  readonly instructions: Pick<InstructionLibrary, 'skills' | 'findings' | 'visibleTo'>
  /** A skill's connection state for a caller; every skill is ready without it. */
  connectionState?(skill: Skill, subjects: { caller: Caller; agentId: string | null }): ConnectionState
}

/** Filters of a listing; each given one must hold. `agentId` is an id (resolve names first). */
export interface SkillFilter {
  class?: string
  category?: string
  tag?: string
  source?: string
  scope?: string
  agentId?: string
  /** Text in the key, title or description (any case). */
  q?: string
  available?: boolean
  /** Connection state for the caller listing. */
  connection?: ConnectionState['state']
}

/**
 * The skills a caller may see, executable and instruction skills together, as HTTP, the CLI and
 * the console list them: effective metadata (catalog overrides applied), filtered, by key. A person
 * sees every skill shared with them, disabled ones included; an agent key only its bound skills and
 * the instruction skills it may activate.
 */
export function listSkills(skills: InventorySources, caller: Caller, filter: SkillFilter = {}): Array<SkillSummary | InstructionSummary> {
  const { instructions } = skills
  const instructionSkills =
    caller.kind === 'agent' ? instructions.visibleTo(caller, null, skills) : instructions.skills.filter((s) => canSee(caller, { key: s.name }, skills))
  const needle = filter.q?.toLowerCase()
  return [
    ...skills
      .list()
      .filter((s) => canSee(caller, s, skills))
      .map((s) => skillSummary(s, skills, skills.connectionState?.(s, subjectsOf(caller, filter)))),
    ...instructionSkills.map((s) => instructionSummary(s, skills, instructions.findings)),
  ]
    .sort((a, b) => a.key.localeCompare(b.key))
    .filter(
      (s) =>
        (!filter.class || s.class === filter.class) &&
        (!filter.category || s.category === filter.category) &&
        (!filter.tag || s.tags.includes(filter.tag)) &&
        (!filter.source || s.source === filter.source) &&
        (!filter.scope || s.scope === filter.scope) &&
        (filter.available === undefined || s.available === filter.available) &&
        (!filter.connection || s.connection.state === filter.connection) &&
        (!filter.agentId || s.agents.includes(filter.agentId)) &&
        (!needle || `${s.key} ${s.title} ${s.description}`.toLowerCase().includes(needle)),
    )
}

/**
 * What a listing shows that no change notice covers, because the skills compute it when asked:
 * each executable skill's availability and connection state for this caller. Two listings with
 * the same fingerprint and no change in between (skills, catalog, bindings, connections) are the same.
 */
export function listingFingerprint(skills: InventorySources, caller: Caller, filter: SkillFilter = {}): string {
  const subjects = subjectsOf(caller, filter)
  const parts: string[] = []
  for (const skill of skills.list()) {
    if (!canSee(caller, skill, skills)) continue
    const { unavailableReason } = availability(skills.isEnabled(skill.key), skill)
    const down = unavailableReason === null ? '' : `!${unavailableReason}`
    const connection = skills.connectionState?.(skill, subjects) ?? READY_CONNECTION
    parts.push(
      connection === READY_CONNECTION
        ? down
        : `${down}\u0000${connection.state}\u0000${connection.missing.secrets.join(',')}\u0000${connection.missing.settings.join(',')}`,
    )
  }
  return parts.join('\u0001')
}

/** Listing for an agent (`agent` filter) shows the state calls made for that agent would meet. */
function subjectsOf(caller: Caller, filter: SkillFilter): { caller: Caller; agentId: string | null } {
  return { caller, agentId: caller.kind === 'agent' ? caller.agentId : (filter.agentId ?? null) }
}
