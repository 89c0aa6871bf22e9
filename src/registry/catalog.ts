import type { SkillClass } from '../skill/index.js'
import type { CatalogRepository, CatalogRow, AgentRow, CatalogChangeRepository, CatalogVersions } from '../store/index.js'
import { parseSharing, SharingError, SHARED_WITH_ALL, type SkillSharing } from './skill-sharing.js'
import { parseRisks, type RiskFinding } from './skill-risks.js'

export interface AgentInfo {
  id: string
  name: string
  aliases: string[]
  description: string
  declared: boolean
}

export interface CatalogEdit {
  title?: string | null
  description?: string | null
  systemPrompt?: string | null
  tags?: string[] | null
  /** Raise the class above the declared one; null goes back to the declared class. */
  class?: SkillClass | null
  enabled?: boolean
}

/** What reading a skill's catalog row answers: overrides, enablement, bindings, sharing, risks. */
export type CatalogReader = Pick<Catalog, 'row' | 'classOverride' | 'isEnabled' | 'isBound' | 'agentsBoundTo' | 'sharing' | 'risks'>

/**
 * The stored, editable side of skills plus agents and bindings, cached in memory so the invoke
 * path never waits on a query. Local edits refresh it at once; edits by another manager sharing
 * the database show up at the next periodic refresh, which reads only the rows written or deleted
 * since the versions it last saw.
 */
export class Catalog {
  #rows = new Map<string, CatalogRow>()
  /** Parsed sharing of the rows that narrow it: access asks for every skill of every listing. */
  #sharing = new Map<string, SkillSharing>()
  #agents = new Map<string, AgentInfo>()
  #labels = new Map<string, string>()
  #bindings = new Map<string, Set<string>>()
  /** The same bindings by skill, sorted agent ids: listings look a skill's agents up, never scan. */
  #bySkill = new Map<string, string[]>()
  /** What the last read saw; undefined until the first read, which takes every row. */
  #versions: CatalogVersions | undefined
  #refreshing: Promise<void> = Promise.resolve()
  /** Called after a refresh that found something different (an edit, a sync, another manager), with the skill rows written or deleted (undefined: every row). */
  onChange: (skills: readonly string[] | undefined) => void = () => {}

  constructor(
    private readonly catalogRepo: CatalogRepository,
    private readonly changes: CatalogChangeRepository,
  ) {}

  /** Read what changed since the last refresh; one at a time, so an older read never lands after a newer one. */
  refresh(): Promise<void> {
    const run = this.#refreshing.then(() => this.#load())
    this.#refreshing = run.catch(() => {})
    return run
  }

  async #load(): Promise<void> {
    const read = await this.changes.read(this.#versions)
    if (read.whole) {
      this.#rows = new Map()
      this.#sharing = new Map()
      this.#agents = new Map()
      this.#labels = new Map()
      this.#bindings = new Map()
      this.#bySkill = new Map()
    }
    // Deletions first: a row deleted and written again since the last read is among the rows read.
    let changed = read.whole
    for (const key of read.deleted.skills) {
      this.#sharing.delete(key)
      changed = this.#rows.delete(key) || changed
    }
    let agentsChanged = read.whole || read.agents.length > 0
    for (const id of read.deleted.agents) agentsChanged = this.#agents.delete(id) || agentsChanged
    for (const b of read.deleted.bindings) changed = this.#unbind(b.agent_id, b.skill_key) || changed
    for (const row of read.skills) {
      this.#rows.set(row.key, row)
      const sharing = parseSharing(row.sharing)
      if (sharing.visibility === 'all') this.#sharing.delete(row.key)
      else this.#sharing.set(row.key, sharing)
    }
    for (const b of read.bindings) this.#bind(b.agent_id, b.skill_key)
    if (agentsChanged) {
      for (const row of read.agents) this.#agents.set(row.id, toAgentInfo(row))
      // Listed by name, and a label two agents share goes to the later name, as a full read did.
      this.#agents = new Map([...this.#agents].sort(([, a], [, b]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
      this.#labels = new Map()
      for (const agent of this.#agents.values()) {
        for (const label of [agent.id, agent.name, ...agent.aliases]) this.#labels.set(label.toLowerCase(), agent.id)
      }
    }
    this.#versions = read.versions
    if (changed || agentsChanged || read.skills.length > 0 || read.bindings.length > 0) {
      this.onChange(read.whole ? undefined : [...read.deleted.skills, ...read.skills.map((row) => row.key)])
    }
  }

  #bind(agentId: string, key: string): void {
    let set = this.#bindings.get(agentId)
    if (!set) this.#bindings.set(agentId, (set = new Set()))
    if (set.has(key)) return
    set.add(key)
    const ids = this.#bySkill.get(key)
    if (!ids) this.#bySkill.set(key, [agentId])
    else ids.splice(sortedIndex(ids, agentId), 0, agentId)
  }

  #unbind(agentId: string, key: string): boolean {
    if (!this.#bindings.get(agentId)?.delete(key)) return false
    const ids = this.#bySkill.get(key)!
    ids.splice(ids.indexOf(agentId), 1)
    if (ids.length === 0) this.#bySkill.delete(key)
    return true
  }

  row(key: string): CatalogRow | undefined {
    return this.#rows.get(key)
  }

  classOverride(key: string): SkillClass | null {
    return (this.#rows.get(key)?.class_override as SkillClass | null | undefined) ?? null
  }

  /** A skill without a row yet (registered after the last sync) counts as enabled. */
  isEnabled(key: string): boolean {
    return (this.#rows.get(key)?.enabled ?? 1) === 1
  }

  /** Agent id for an id, name or alias (case-insensitive), or undefined. */
  resolveAgent(label: string): string | undefined {
    return this.#labels.get(label.toLowerCase())
  }

  agent(id: string): AgentInfo | undefined {
    return this.#agents.get(id)
  }

  agents(): AgentInfo[] {
    return [...this.#agents.values()]
  }

  isBound(agentId: string, key: string): boolean {
    return this.#bindings.get(agentId)?.has(key) ?? false
  }

  boundSkills(agentId: string): string[] {
    return [...(this.#bindings.get(agentId) ?? [])].sort()
  }

  agentsBoundTo(key: string): string[] {
    return [...(this.#bySkill.get(key) ?? [])]
  }

  /** Who may see a skill; a skill without a row yet is shared with all. */
  sharing(key: string): SkillSharing {
    return this.#sharing.get(key) ?? SHARED_WITH_ALL
  }

  /** The risk findings recorded for a skill at its install or upload, worst first as stored. */
  risks(key: string): RiskFinding[] {
    return parseRisks(this.#rows.get(key)?.risks)
  }

  /**
   * Share a skill with all, or only with agents (ids, names or aliases; stored as ids) or users
   * (user names or ids). Throws SharingError naming an unknown agent; undefined when the skill has no row yet.
   */
  async setSharing(key: string, sharing: SkillSharing, now: string): Promise<SkillSharing | undefined> {
    if (!this.#rows.has(key)) return undefined
    const stored = this.#resolveSharing(sharing)
    await this.catalogRepo.update(key, { sharing: stored.visibility === 'all' ? null : JSON.stringify(stored), updated_at: now })
    await this.refresh()
    return this.sharing(key)
  }

  /** Record what scanning the skill's files found (replacing what was recorded); false when it has no row yet. */
  async setRisks(key: string, risks: readonly RiskFinding[], now: string): Promise<boolean> {
    if (!this.#rows.has(key)) return false
    await this.catalogRepo.update(key, { risks: risks.length ? JSON.stringify(risks) : null, updated_at: now })
    await this.refresh()
    return true
  }

  #resolveSharing(sharing: SkillSharing): SkillSharing {
    if (sharing.visibility === 'all') return SHARED_WITH_ALL
    if (sharing.visibility === 'agents') {
      if (sharing.agents.length === 0) throw new SharingError('agents: name at least one agent (or share with all)')
      const unknown = sharing.agents.filter((label) => !this.resolveAgent(label))
      if (unknown.length) throw new SharingError(`unknown agent${unknown.length > 1 ? 's' : ''} ${unknown.map((a) => `"${a}"`).join(', ')}`)
      return { visibility: 'agents', agents: [...new Set(sharing.agents.map((label) => this.resolveAgent(label)!))].sort() }
    }
    const users = [...new Set(sharing.users.map((u) => u.trim()).filter(Boolean))].sort()
    if (users.length === 0) throw new SharingError('users: name at least one user (or share with all)')
    return { visibility: 'users', users }
  }

  async edit(key: string, edit: CatalogEdit, now: string): Promise<CatalogRow | undefined> {
    if (!this.#rows.has(key)) return undefined
    await this.catalogRepo.update(key, {
      ...(edit.title !== undefined && { title_override: edit.title }),
      ...(edit.description !== undefined && { description_override: edit.description }),
      ...(edit.systemPrompt !== undefined && { system_prompt: edit.systemPrompt }),
      ...(edit.tags !== undefined && { tags_override: edit.tags === null ? null : JSON.stringify(edit.tags) }),
      ...(edit.class !== undefined && { class_override: edit.class }),
      ...(edit.enabled !== undefined && { enabled: edit.enabled ? 1 : 0 }),
      updated_at: now,
    })
    await this.refresh()
    return this.#rows.get(key)
  }
}

/** Where id goes in ascending ids. */
function sortedIndex(ids: string[], id: string): number {
  let low = 0
  let high = ids.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (ids[mid]! < id) low = mid + 1
    else high = mid
  }
  return low
}

function toAgentInfo(row: AgentRow): AgentInfo {
  return {
    id: row.id,
    name: row.name,
    aliases: JSON.parse(row.aliases) as string[],
    description: row.description,
    declared: row.declared === 1,
  }
}
