import { READY_CONNECTION, type Caller, type ConnectionState, type Skill } from '../skill/index.js'
import { type Registry, type CatalogReader, skillSummary, type SkillSummary } from '../registry/index.js'
import { canSee } from '../access/index.js'
import { type InstructionLibrary, instructionSummary, type InstructionSummary, type LibrarySkill } from '../sources/agent-skills/index.js'

/** What a skill listing reads (a plane's `skills` is one): every executable skill, the catalog, the instruction skills. */
export interface InventorySources extends Pick<Registry, 'list' | 'get'>, CatalogReader {
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
  /** Only these keys. */
  keys?: readonly string[]
  /** Text in the key, title or description (any case). */
  q?: string
  available?: boolean
  /** Connection state for the caller listing. */
  connection?: ConnectionState['state']
}

export type ListedSkill = SkillSummary | InstructionSummary

/** A place in the listing: a key, and which of the two kinds (an instruction skill follows an executable one of the same name). */
export interface ListingPosition {
  key: string
  instruction: boolean
}

/** One page of a listing: `next` is the last skill shown when more skills follow (where the next page starts after). */
export interface SkillPage {
  skills: ListedSkill[]
  next: ListingPosition | null
}

// The listing's order, the registry's too: by key.
const byKey = (a: string, b: string) => a.localeCompare(b)

/**
 * The skills a caller may see, executable and instruction skills together, as HTTP, the CLI and
 * the console list them: effective metadata (catalog overrides applied), filtered, by key. A person
 * sees every skill shared with them, disabled ones included; an agent key only its bound skills and
 * the instruction skills it may activate.
 */
export function listSkills(skills: InventorySources, caller: Caller, filter: SkillFilter = {}): ListedSkill[] {
  return listSkillsPage(skills, caller, filter, { limit: Infinity }).skills
}

/**
 * `limit` skills of that listing after the key `after`. Only the skills a page walks past are
 * summarised, so a page costs its own size, not the catalog's, unless the filters skip most skills.
 */
export function listSkillsPage(skills: InventorySources, caller: Caller, filter: SkillFilter, page: { after?: ListingPosition; limit: number }): SkillPage {
  const { instructions } = skills
  const subjects = subjectsOf(caller, filter)
  const needle = filter.q?.toLowerCase()
  const executables = candidates(skills, filter)
  const instructionSkills = (
    caller.kind === 'agent' ? instructions.visibleTo(caller, null, skills) : instructions.skills.filter((s) => canSee(caller, { key: s.name }, skills))
  )
    .filter((s) => !filter.keys || filter.keys.includes(s.name))
    .sort((a, b) => byKey(a.name, b.name))
  const after = page.after
  let e = after === undefined ? 0 : firstAfter(executables, after.key)
  // After an executable skill, an instruction skill of the same name is still to come.
  let i = after === undefined ? 0 : instructionSkills.findIndex((s) => byKey(s.name, after.key) > (after.instruction ? 0 : -1))
  if (i < 0) i = instructionSkills.length
  const shown: ListedSkill[] = []
  // One more than the page, to know whether another page follows.
  while (shown.length <= page.limit && (e < executables.length || i < instructionSkills.length)) {
    let summary: ListedSkill | undefined
    const instruction: LibrarySkill | undefined = instructionSkills[i]
    if (e < executables.length && (!instruction || byKey(executables[e]!.key, instruction.name) <= 0)) {
      const skill = executables[e++]!
      if (declaredMatch(skill, filter) && canSee(caller, skill, skills)) {
        const connection = skills.connectionState?.(skill, subjects)
        // Checked before the summary is made: a filter that skips most skills then reads little of each.
        if (!filter.connection || (connection ?? READY_CONNECTION).state === filter.connection) summary = skillSummary(skill, skills, connection)
      }
    } else {
      summary = instructionSummary(instruction!, skills, instructions.findings)
      i++
    }
    if (summary && matches(summary, filter, needle)) shown.push(summary)
  }
  const more = shown.length > page.limit
  if (more) shown.pop()
  const last = shown[shown.length - 1]
  return { skills: shown, next: more ? { key: last!.key, instruction: 'folder' in last! } : null }
}

/** The executable skills a filter can match, by key: the named keys when given, else all. */
function candidates(skills: InventorySources, filter: SkillFilter): Skill[] {
  const { keys } = filter
  if (!keys) return skills.list()
  return keys
    .flatMap((key) => skills.get(key) ?? [])
    .filter((s, index, all) => all.findIndex((t) => t.key === s.key) === index)
    .sort((a, b) => byKey(a.key, b.key))
}

/** The index of the first skill whose key sorts after `key` (a binary search: the list is by key). */
function firstAfter(list: readonly Skill[], key: string): number {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (byKey(list[mid]!.key, key) <= 0) low = mid + 1
    else high = mid
  }
  return low
}

/** The filters on what no catalog row changes (class is the skill's effective one), asked of the skill itself. */
function declaredMatch(skill: Skill, filter: SkillFilter): boolean {
  return (
    (!filter.class || skill.class === filter.class) &&
    (!filter.category || skill.category === filter.category) &&
    (!filter.source || skill.source === filter.source) &&
    (!filter.scope || skill.scope === filter.scope)
  )
}

function matches(s: ListedSkill, filter: SkillFilter, needle: string | undefined): boolean {
  return (
    (!filter.class || s.class === filter.class) &&
    (!filter.category || s.category === filter.category) &&
    (!filter.tag || s.tags.includes(filter.tag)) &&
    (!filter.source || s.source === filter.source) &&
    (!filter.scope || s.scope === filter.scope) &&
    (filter.available === undefined || s.available === filter.available) &&
    (!filter.connection || s.connection.state === filter.connection) &&
    (!filter.agentId || s.agents.includes(filter.agentId)) &&
    (!needle || `${s.key} ${s.title} ${s.description}`.toLowerCase().includes(needle))
  )
}

/** Listing for an agent (`agent` filter) shows the state calls made for that agent would meet. */
function subjectsOf(caller: Caller, filter: SkillFilter): { caller: Caller; agentId: string | null } {
  return { caller, agentId: caller.kind === 'agent' ? caller.agentId : (filter.agentId ?? null) }
}
