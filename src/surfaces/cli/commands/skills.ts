import { resolve } from 'node:path'
import type { Command } from 'commander'
import { skillDetail, agentCaller } from '../../../registry/index.js'
import { listSkills } from '../../../inventory/index.js'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'
import { validateSkills, formatFinding, instructionSummary, writeExport } from '../../../sources/agent-skills/index.js'
import cliProgress from 'cli-progress'
import type { Caller } from '../../../skill/index.js'
import type { Skillplane } from '../../../skillplane/index.js'

// Listing shows whether each skill could run now, so MCP servers are connected first.
const withLivePlane = <T>(o: GlobalOptions, fn: (plane: Skillplane) => Promise<T>) => withPlane(o, fn, { connectMcp: true })

export function skillsCommand(program: Command): void {
  const skills = program.command('skills').description('list and inspect skills')

  skills
    .command('list')
    .description('list every registered skill with its class, scope, source and bindings')
    .option('--class <class>', 'only this class (safe, mutating, dangerous)')
    .option('--category <category>', 'only this category')
    .option('--tag <tag>', 'only skills with this tag')
    .option('--source <source>', 'only this source (code, agent-skill, pack, mcp, edge)')
    .option('--agent <agent>', 'only skills bound to this agent (name, alias or id)')
    .option('--scope <scope>', 'only this scope (manager, host)')
    .option('--available', 'only skills that could run now')
    .option('--q <text>', 'only skills with this text in their key, title or description')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<
        GlobalOptions & {
          class?: string
          category?: string
          tag?: string
          source?: string
          agent?: string
          scope?: string
          available?: boolean
          q?: string
          json?: boolean
        }
      >()
      await withLivePlane(o, async (plane) => {
        const agentId = o.agent ? plane.catalog.resolveAgent(o.agent) : undefined
        if (o.agent && !agentId) throw new CliError(`unknown agent "${o.agent}"`)
        const list = listSkills(plane, localAdmin(), {
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
              s.available ? 'yes' : s.enabled ? 'no' : 'disabled',
              s.agents.join(',') || '-',
              truncate(s.description, 60),
            ]),
          ),
        )
      })
    })

  skills
    .command('show <key>')
    .description('show one skill with its schemas')
    .option('--json', 'print JSON')
    .action(async (key: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { json?: boolean }>()
      await withLivePlane(o, async (plane) => {
        const instruction = plane.instructions.get(key)
        if (instruction) {
          const summary = instructionSummary(instruction, plane.catalog, plane.instructions.findings)
          if (o.json) return console.log(JSON.stringify(summary, null, 2))
          console.log(`${summary.key}: instruction skill (${instruction.template ? 'SKILL.md.template' : 'SKILL.md'}) in ${summary.folder}`)
          console.log(`  ${summary.description}`)
          console.log(`  agents ${summary.agents.join(', ') || '-'}; enabled ${summary.enabled ? 'yes' : 'no'}`)
          for (const d of summary.diagnostics) console.log(`  ${d.severity}: line ${d.line}: ${d.message}`)
          return
        }
        const skill = plane.registry.get(key)
        if (!skill) throw new CliError(`no skill with key "${key}"`)
        const d = skillDetail(skill, plane.catalog)
        if (o.json) return console.log(JSON.stringify(d, null, 2))
        console.log(`${d.key}: ${d.title}`)
        console.log(`  ${d.description}`)
        console.log(`  class ${d.class}, scope ${d.scope}, source ${d.source} (${d.origin}), category ${d.category}`)
        console.log(`  tags ${d.tags.join(', ') || '-'}; agents ${d.agents.join(', ') || '-'}; enabled ${d.enabled ? 'yes' : 'no'}; timeout ${d.timeoutMs} ms`)
        if (d.systemPrompt) console.log(`  system prompt: ${d.systemPrompt}`)
        console.log(`input schema:\n${JSON.stringify(d.inputSchema, null, 2)}`)
        if (d.outputSchema) console.log(`output schema:\n${JSON.stringify(d.outputSchema, null, 2)}`)
      })
    })

  skills
    .command('validate <paths...>')
    .description('check SKILL.md folders strictly against the Agent Skills specification (and their links)')
    .option('--json', 'print { skills, errors, warnings, findings } as JSON')
    .action((paths: string[], o: { json?: boolean }) => {
      // A bar only where someone watches a long run; pipes and CI get the plain report.
      const bar =
        process.stderr.isTTY && !o.json
          ? new cliProgress.SingleBar({ stream: process.stderr, clearOnComplete: true }, cliProgress.Presets.shades_classic)
          : null
      let started = false
      const report = validateSkills(paths, {
        maxDepth: 6,
        maxSkills: 100_000,
        onProgress: (done, total) => {
          if (!bar || total < 200) return
          if (!started) bar.start(total, 0)
          started = true
          bar.update(done)
        },
      })
      if (started) bar?.stop()
      if (o.json) console.log(JSON.stringify(report, null, 2))
      else {
        for (const finding of report.findings) console.log(formatFinding(finding))
        console.log(
          `${report.skills} skill${report.skills === 1 ? '' : 's'} checked: ${report.errors} error${report.errors === 1 ? '' : 's'}, ${report.warnings} warning${report.warnings === 1 ? '' : 's'}`,
        )
      }
      if (report.errors > 0) process.exitCode = 1
    })

  skills
    .command('export')
    .description('write the instruction-skill files an agent should have (templates rendered) to a folder, with a manifest')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .option('--user <key>', 'render as this user (key name or id); default: as the agent itself')
    .requiredOption('--out <dir>', 'the folder to write')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { agent: string; user?: string; out: string }>()
      const result = await withPlane(o, async (plane) => {
        const agentId = plane.catalog.resolveAgent(o.agent)
        if (!agentId) throw new CliError(`unknown agent "${o.agent}"`)
        let caller: Caller = agentCaller(agentId, plane.catalog.agent(agentId)?.name ?? agentId)
        if (o.user) {
          const user = await plane.keys.callerFor(o.user)
          if (!user) throw new CliError(`no active key named "${o.user}"`)
          caller = user
        }
        const set = plane.exportSkills(caller, agentId)
        await plane.events.record('skills.exported', `agent:${agentId}`, localAdmin(), {
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
    })
}
