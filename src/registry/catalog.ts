import type { SkillClass } from '../skill/index.js'
import type { CatalogRepository, CatalogRow, AgentRepository, AgentRow } from '../store/index.js'

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

/**
 * The stored, editable side of skills plus agents and bindings, cached in memory so the invoke
 * path never waits on a query. Local edits refresh it at once; edits by another manager sharing
 * the database show up at the next periodic refresh.
 */
export class Catalog {
  #rows = new Map<string, CatalogRow>()
  #agents = new Map<string, AgentInfo>()
  #labels = new Map<string, string>()
  #bindings = new Map<string, Set<string>>()
  /** The same bindings by skill, sorted agent ids: listings look a skill's agents up, never scan. */
  #bySkill = new Map<string, string[]>()
  #signature = ''
  /** Called after a refresh that found something different (an edit, a sync, another manager). */
  onChange: () => void = () => {}

  constructor(
    private readonly catalogRepo: CatalogRepository,
    private readonly agentRepo: AgentRepository,
  ) {}

  async refresh(): Promise<void> {
    const [rows, agents, bindings] = await Promise.all([this.catalogRepo.list(), this.agentRepo.list(), this.agentRepo.listBindings()])
    const signature = JSON.stringify([rows, agents, bindings])
    const changed = signature !== this.#signature
    this.#signature = signature
    this.#rows = new Map(rows.map((r) => [r.key, r]))
    this.#agents = new Map(agents.map((a) => [a.id, toAgentInfo(a)]))
    this.#labels = new Map()
    for (const agent of this.#agents.values()) {
      for (const label of [agent.id, agent.name, ...agent.aliases]) this.#labels.set(label.toLowerCase(), agent.id)
    }
    this.#bindings = new Map()
    this.#bySkill = new Map()
    for (const b of bindings) {
      let set = this.#bindings.get(b.agent_id)
      if (!set) this.#bindings.set(b.agent_id, (set = new Set()))
      set.add(b.skill_key)
      let ids = this.#bySkill.get(b.skill_key)
      if (!ids) this.#bySkill.set(b.skill_key, (ids = []))
      ids.push(b.agent_id)
    }
    for (const ids of this.#bySkill.values()) ids.sort()
    if (changed) this.onChange()
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
    const row = await this.catalogRepo.get(key)
    if (row) this.#rows.set(key, row)
    this.onChange()
    return row
  }
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
