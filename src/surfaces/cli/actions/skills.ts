import { resolve } from 'node:path'
import { skillDetail, agentCaller } from '../../../registry/index.js'
import { listSkills } from '../../../inventory/index.js'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'
import { riskText } from './print-plan.js'
import { instructionDetail, writeExport } from '../../../sources/agent-skills/index.js'
import type { Caller } from '../../../skill/index.js'
import { DISCOVER_KEY, type DiscoveryAnswer } from '../../../discovery/index.js'
import type { Skillplane } from '../../../agents/index.js'
import type { RiskFinding, SharingView, SkillSharing } from '../../../registry/index.js'
import { didYouMean } from '../../../text/index.js'

// Searching and showing tell whether a skill could run now, so MCP servers are connected first.
const withLivePlane = <T>(o: GlobalOptions, fn: (plane: Skillplane) => Promise<T>) => withPlane(o, fn, { connectMcp: true })

export async function skillsList(
  o: GlobalOptions & {
    class?: string
    category?: string
    tag?: string
    source?: string
    agent?: string
    scope?: string
    available?: boolean
    q?: string
    json?: boolean
  },
): Promise<void> {
  // No MCP server is started for a listing: their tools are those they listed last, each connecting on its first call.
  await withPlane(o, async (plane) => {
    const agentId = o.agent ? plane.agents.resolve(o.agent) : undefined
    if (o.agent && !agentId) throw new CliError(`unknown agent "${o.agent}"`)
    const list = listSkills(plane.skills, localAdmin(), {
      class: o.class,
      category: o.category,
      tag: o.tag,
      source: o.source,
      scope: o.scope,
      agentId,
      q: o.q,
      available: o.available || undefined,
    })
    if (o.json) return console.log(JSON.stringify(list, null, 2))
    if (list.length === 0) return console.log('no skills')
    console.log(
      formatTable(
        ['KEY', 'CLASS', 'SCOPE', 'SOURCE', 'CATEGORY', 'AVAILABLE', 'AGENTS', 'DESCRIPTION'],
        list.map((s) => [
          s.key,
          s.class,
          s.scope,
          s.source,
          s.category,
          !s.enabled ? 'disabled' : !s.available ? 'no' : s.connection.state === 'ready' ? 'yes' : s.connection.state,
          s.agents.join(',') || '-',
          truncate(s.description, 60),
        ]),
      ),
    )
  })
}

export async function skillsSearch(
  query: string,
  o: GlobalOptions & { limit?: number; maxTokens?: number; agent?: string; excludeBound?: boolean; json?: boolean },
): Promise<void> {
  await withLivePlane(o, async (plane) => {
    const envelope = await plane.invoke(
      DISCOVER_KEY,
      { query, limit: o.limit, maxTokens: o.maxTokens, agent: o.agent, excludeBound: o.excludeBound },
      { caller: localAdmin() },
    )
    if (!envelope.ok) throw new CliError(envelope.error.message)
    const answer = envelope.data as DiscoveryAnswer
    if (o.json) return console.log(JSON.stringify(answer, null, 2))
    if (answer.results.length === 0) return console.log('no skills found')
    for (const r of answer.results) {
      const approval = r.needsApproval ? ', needs approval' : ''
      console.log(`${r.key} (${r.score.toFixed(2)}): ${r.title} [${r.kind === 'instruction' ? 'instruction skill' : r.class}${approval}]`)
      console.log(`  ${truncate(r.description, 100)}`)
      console.log(`  arguments: ${r.arguments}`)
      console.log(`  why: ${r.why.join('; ')}`)
    }
    if (answer.omitted) console.log(`(${answer.omitted} more left out by --max-tokens)`)
  })
}

export async function skillsShow(key: string, o: GlobalOptions & { json?: boolean }): Promise<void> {
  await withLivePlane(o, async (plane) => {
    const instruction = plane.skills.instructions.get(key)
    if (instruction) {
      const summary = instructionDetail(instruction, plane.skills, plane.skills.instructions.findings)
      if (o.json) return console.log(JSON.stringify(summary, null, 2))
      console.log(`${summary.key}: instruction skill (${instruction.template ? 'SKILL.md.template' : 'SKILL.md'}) in ${summary.folder}`)
      console.log(`  ${summary.description}`)
      console.log(`  agents ${summary.agents.join(', ') || '-'}; enabled ${summary.enabled ? 'yes' : 'no'}; ${sharingLine(summary.sharing)}`)
      for (const d of summary.diagnostics) console.log(`  ${d.severity}: line ${d.line}: ${d.message}`)
      printRisks(summary.risks)
      return
    }
    const skill = plane.skills.get(key)
    if (!skill)
      throw new CliError(
        `no skill with key "${key}"${didYouMean(key, [...plane.skills.list().map((s) => s.key), ...plane.skills.instructions.skills.map((s) => s.name)])}`,
      )
    const d = skillDetail(skill, plane.skills, undefined, plane.skills.connectionState(skill, { caller: localAdmin(), agentId: null }))
    if (o.json) return console.log(JSON.stringify(d, null, 2))
    console.log(`${d.key}: ${d.title}`)
    console.log(`  ${d.description}`)
    const klass = d.class === d.declaredClass ? d.class : `${d.class} (raised in the catalog; declared ${d.declaredClass})`
    console.log(`  class ${klass}, scope ${d.scope}, source ${d.source} (${d.origin}), category ${d.category}`)
    console.log(`  tags ${d.tags.join(', ') || '-'}; agents ${d.agents.join(', ') || '-'}; enabled ${d.enabled ? 'yes' : 'no'}; timeout ${d.timeoutMs} ms`)
    console.log(`  ${sharingLine(d.sharing)}`)
    printRisks(d.risks)
    if (d.needs.secrets.length > 0 || d.needs.settings.length > 0) {
      const missing = [...d.connection.missing.secrets, ...d.connection.missing.settings]
      console.log(
        `  needs secrets ${d.needs.secrets.join(', ') || '-'}; settings ${d.needs.settings.join(', ') || '-'}: ${d.connection.state}${missing.length ? ` (missing ${missing.join(', ')} for you)` : ''}`,
      )
    } else if (d.connection.state !== 'ready') {
      console.log(`  ${d.connection.state}: its source waits for ${[...d.connection.missing.secrets, ...d.connection.missing.settings].join(', ')}`)
    }
    if (d.systemPrompt) console.log(`  system prompt: ${d.systemPrompt}`)
    console.log(`input schema:\n${JSON.stringify(d.inputSchema, null, 2)}`)
    if (d.outputSchema) console.log(`output schema:\n${JSON.stringify(d.outputSchema, null, 2)}`)
  })
}

function sharingLine(sharing: SharingView): string {
  if ('agents' in sharing) return `shared with agents ${sharing.agents.join(', ')}`
  if ('users' in sharing) return `shared with users ${sharing.users.join(', ')}`
  return sharing.visibility === 'all' ? 'shared with everyone' : `shared with some ${sharing.visibility}`
}

function printRisks(risks: readonly RiskFinding[]): void {
  for (const r of risks) console.log(`  risk ${r.level}: ${riskText(r)}`)
}

export async function skillsExport(o: GlobalOptions & { agent: string; user?: string; out: string }): Promise<void> {
  const result = await withPlane(o, async (plane) => {
    const agentId = plane.agents.resolve(o.agent)
    if (!agentId) throw new CliError(`unknown agent "${o.agent}"`)
    let caller: Caller = agentCaller(agentId, plane.agents.get(agentId)?.name ?? agentId)
    if (o.user) {
      const user = await plane.people.keys.callerFor(o.user)
      if (!user) throw new CliError(`no enabled user or active key named "${o.user}"`)
      caller = user
    }
    const set = plane.skills.export(caller, agentId)
    await plane.audit.events.record('skills.exported', `agent:${agentId}`, localAdmin(), {
      as: caller.name,
      skills: set.manifest.skills,
      files: set.files.size,
      to: resolve(o.out),
    })
    return writeExport(set, o.out)
  })
  if (result.written.length === 0 && result.removed.length === 0) return console.log(`${o.out}: unchanged`)
  for (const path of result.written) console.log(`+ ${path}`)
  for (const path of result.removed) console.log(`- ${path}`)
  console.log(`${o.out}: ${result.written.length} written, ${result.removed.length} removed`)
}

export async function skillsShare(name: string, o: GlobalOptions & { all?: boolean; agent?: string[]; user?: string[]; json?: boolean }): Promise<void> {
  const chosen = [o.all && '--all', o.agent && '--agent', o.user && '--user'].filter(Boolean)
  if (chosen.length !== 1)
    throw new CliError(`say whom to share "${name}" with: one of --all, --agent A..., --user U...${chosen.length ? ` (not ${chosen.join(' and ')})` : ''}`)
  const sharing: SkillSharing = o.agent ? { visibility: 'agents', agents: o.agent } : o.user ? { visibility: 'users', users: o.user } : { visibility: 'all' }
  const shared = await withPlane(o, (plane) => plane.skills.share(name, sharing, localAdmin()))
  if (!shared.ok) throw new CliError(shared.message)
  if (o.json) return console.log(JSON.stringify({ key: shared.key, sharing: shared.sharing, notes: shared.notes }, null, 2))
  const whom =
    shared.sharing.visibility === 'all'
      ? 'everyone'
      : shared.sharing.visibility === 'agents'
        ? `agents ${shared.sharing.agents.join(', ')}`
        : `users ${shared.sharing.users.join(', ')}`
  console.log(`${shared.key}: shared with ${whom} (admins see every skill)`)
  for (const note of shared.notes) console.log(`  note: ${note}`)
}
