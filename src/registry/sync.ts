import type { Kysely } from 'kysely'
import { type Database, AgentRepository, type AgentRow, CatalogRepository, type CatalogRow, ChangeVersionRepository } from '../store/index.js'
import type { Skill } from '../skill/index.js'

/** What sync needs of a skill: its code-side metadata and declared bindings (executable or instruction). */
export type CatalogEntry = Pick<Skill, 'key' | 'source' | 'origin' | 'declaredClass' | 'scope' | 'category' | 'title' | 'description' | 'tags' | 'agents'>
import { agentId } from './agent-id.js'
import { SkillplaneError } from '../errors/index.js'

export type SyncChangeKind =
  | 'agent_created'
  | 'agent_updated'
  | 'agent_undeclared'
  | 'skill_created'
  | 'skill_updated'
  | 'skill_restored'
  | 'skill_orphaned'
  | 'skill_pruned'
  | 'binding_created'
  | 'binding_removed'

export type SyncWarningKind = 'unknown_agent' | 'unknown_skill' | 'orphan_row'

export interface SyncChange {
  kind: SyncChangeKind
  subject: string
  message: string
}

export interface SyncWarning {
  kind: SyncWarningKind
  subject: string
  message: string
}

export interface SyncReport {
  dryRun: boolean
  changes: SyncChange[]
  warnings: SyncWarning[]
}

interface SyncInput {
  db: Kysely<Database>
  entries: readonly CatalogEntry[]
  /** The agents the config declares. */
  agents: ReadonlyArray<{ name: string; aliases: string[]; description: string; skills?: readonly string[] }>
  dryRun: boolean
  /** Delete catalog rows (and their bindings) whose executor is gone, instead of reporting them; a list: only those keys' rows. */
  prune: boolean | readonly string[]
  /** Sync even a config without skills over a catalog that has some (every row would be orphaned). */
  force?: boolean
  now: string
}

/** A sync refused because it would orphan the whole catalog: most often the wrong config was loaded. */
export class SyncRefusedError extends SkillplaneError {
  override readonly code = 'conflict'
  override readonly name = 'SyncRefusedError'
}

/**
 * Make the store match the registry and config, like a seed that can't drift: create catalog
 * rows, refresh code-side metadata (never the editable overrides), and make each declared agent's
 * bindings exactly what the code declares.
 */
export async function syncCatalog(input: SyncInput): Promise<SyncReport> {
  const run = async (db: Kysely<Database>): Promise<SyncReport> => {
    const catalog = new CatalogRepository(db)
    const agentsRepo = new AgentRepository(db)
    const report: SyncReport = { dryRun: input.dryRun, changes: [], warnings: [] }
    const apply = async (write: () => Promise<void>) => {
      if (!input.dryRun) await write()
    }

    // Agents declared in the config.
    const storedAgents = new Map((await agentsRepo.list()).map((a) => [a.id, a]))
    const declared = new Map<string, string>()
    const byLabel = new Map<string, string>()
    for (const agent of input.agents) {
      const id = agentId(agent.name)
      declared.set(id, agent.name)
      for (const label of [agent.name, id, ...agent.aliases]) byLabel.set(label.toLowerCase(), id)
      const row: AgentRow = {
        id,
        name: agent.name,
        aliases: JSON.stringify(agent.aliases),
        description: agent.description,
        declared: 1,
        created_at: input.now,
        updated_at: input.now,
      }
      const stored = storedAgents.get(id)
      if (!stored) {
        report.changes.push({ kind: 'agent_created', subject: id, message: `+ agent ${agent.name} (${id})` })
        await apply(() => agentsRepo.upsert(row))
      } else if (stored.aliases !== row.aliases || stored.description !== row.description || stored.declared !== 1 || stored.name !== row.name) {
        report.changes.push({ kind: 'agent_updated', subject: id, message: `~ agent ${agent.name}: name, aliases or description changed` })
        await apply(() => agentsRepo.upsert({ ...row, created_at: stored.created_at }))
      }
    }
    for (const stored of storedAgents.values()) {
      if (stored.declared === 1 && !declared.has(stored.id)) {
        report.changes.push({
          kind: 'agent_undeclared',
          subject: stored.id,
          message: `~ agent ${stored.name} is no longer in the config; kept with its bindings, no longer synced`,
        })
        await apply(() => agentsRepo.setDeclared(stored.id, false, input.now))
      }
    }

    // Catalog rows.
    const rows = new Map((await catalog.list()).map((r) => [r.key, r]))
    // Built-in skills (discover_skills, test_run) are there whatever the config says: they don't count here.
    const builtIn = (origin: string) => origin.startsWith('built-in')
    const present = [...rows.values()].filter((r) => r.present === 1 && !builtIn(r.origin)).length
    if (!input.entries.some((e) => !builtIn(e.origin)) && present > 0 && !input.force) {
      throw new SyncRefusedError(
        `the config has no skills, and syncing it would orphan all ${present} skill${present === 1 ? '' : 's'} of the catalog: ` +
          'check that the right config was loaded (--config), or sync it anyway with skillplane sync --force',
      )
    }
    const entries = new Map(input.entries.map((e) => [e.key, e]))
    for (const skill of input.entries) {
      const stored = rows.get(skill.key)
      const code = codeColumns(skill)
      if (!stored) {
        report.changes.push({ kind: 'skill_created', subject: skill.key, message: `+ skill ${skill.key} (${skill.source}, ${skill.declaredClass})` })
        await apply(() =>
          catalog.insert({
            key: skill.key,
            ...code,
            title_override: null,
            description_override: null,
            system_prompt: null,
            tags_override: null,
            class_override: null,
            sharing: null,
            risks: null,
            enabled: 1,
            present: 1,
            created_at: input.now,
            updated_at: input.now,
          }),
        )
        continue
      }
      // origin (file:line) moves with every edit above the definition: not a change worth reporting.
      const changed = (Object.keys(code) as Array<keyof typeof code>).filter((c) => c !== 'origin' && stored[c] !== code[c])
      if (stored.present !== 1) {
        report.changes.push({ kind: 'skill_restored', subject: skill.key, message: `+ skill ${skill.key}: executor is back` })
      } else if (changed.length > 0) {
        report.changes.push({
          kind: 'skill_updated',
          subject: skill.key,
          message: `~ skill ${skill.key}: code ${changed.map((c) => c.replace(/^code_/, '')).join(', ')} changed`,
        })
      }
      if (stored.present !== 1 || changed.length > 0) {
        await apply(() => catalog.update(skill.key, { ...code, present: 1, updated_at: input.now }))
      }
    }
    for (const row of rows.values()) {
      if (entries.has(row.key)) continue
      if (input.prune === true || (Array.isArray(input.prune) && input.prune.includes(row.key))) {
        report.changes.push({ kind: 'skill_pruned', subject: row.key, message: `- skill ${row.key}: executor gone, row and bindings deleted` })
        await apply(() => catalog.delete(row.key))
        continue
      }
      if (row.present === 1) {
        report.changes.push({ kind: 'skill_orphaned', subject: row.key, message: `~ skill ${row.key}: its executor is gone; row kept` })
        await apply(() => catalog.update(row.key, { present: 0, updated_at: input.now }))
      }
      report.warnings.push({
        kind: 'orphan_row',
        subject: row.key,
        message: `! catalog row ${row.key} (${row.source}) has no executor: restore its source, or delete it with sync --prune`,
      })
    }

    // Bindings: for declared agents, exactly what the code declares.
    const desired = new Set<string>()
    for (const skill of input.entries) {
      for (const label of skill.agents) {
        const id = byLabel.get(label.toLowerCase())
        if (!id) {
          report.warnings.push({
            kind: 'unknown_agent',
            subject: skill.key,
            message: `! skill ${skill.key} names unknown agent "${label}" (${skill.origin}); binding skipped`,
          })
          continue
        }
        desired.add(`${id}\u0000${skill.key}`)
      }
    }
    for (const agent of input.agents) {
      for (const key of agent.skills ?? []) {
        if (entries.has(key)) desired.add(`${agentId(agent.name)}\u0000${key}`)
        else
          report.warnings.push({
            kind: 'unknown_skill',
            subject: key,
            message: `! agent ${agent.name} names skill "${key}", which no source offers now; bound once one does`,
          })
      }
    }
    const pruned = new Set(report.changes.filter((c) => c.kind === 'skill_pruned').map((c) => c.subject))
    const existing = new Set((await agentsRepo.listBindings()).filter((b) => !pruned.has(b.skill_key)).map((b) => `${b.agent_id}\u0000${b.skill_key}`))
    for (const pair of desired) {
      if (existing.has(pair)) continue
      const [id, key] = pair.split('\u0000') as [string, string]
      report.changes.push({ kind: 'binding_created', subject: `${id}/${key}`, message: `+ binding ${declared.get(id)} → ${key}` })
      await apply(() => agentsRepo.bind(id, key, input.now))
    }
    for (const pair of existing) {
      const [id, key] = pair.split('\u0000') as [string, string]
      if (!declared.has(id) || desired.has(pair)) continue
      report.changes.push({
        kind: 'binding_removed',
        subject: `${id}/${key}`,
        message: `- binding ${declared.get(id)} → ${key} (no longer declared in code or config)`,
      })
      await apply(() => agentsRepo.unbind(id, key))
    }
    return report
  }
  return input.dryRun
    ? run(input.db)
    : input.db.transaction().execute(async (trx) => {
        await new ChangeVersionRepository(trx).lockAll()
        return run(trx)
      })
}

function codeColumns(
  skill: CatalogEntry,
): Pick<CatalogRow, 'source' | 'origin' | 'class' | 'scope' | 'category' | 'code_title' | 'code_description' | 'code_tags'> {
  return {
    source: skill.source,
    origin: skill.origin,
    class: skill.declaredClass,
    scope: skill.scope,
    category: skill.category,
    code_title: skill.title,
    code_description: skill.description,
    code_tags: JSON.stringify(skill.tags),
  }
}
