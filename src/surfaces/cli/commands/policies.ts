import { Option, type Command } from 'commander'
import { POLICY_DECISIONS, POLICY_LEVELS, type PolicyDecision, type PolicyLevel } from '../../../policy/index.js'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

export function policiesCommand(program: Command): void {
  const policies = program.command('policies').description('list, set and clear ALWAYS / ASK / DENY overrides')

  policies
    .command('list')
    .description('every stored override')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { json?: boolean }>()
      const list = await withPlane(o, async (plane) => plane.policies.list())
      if (o.json) return console.log(JSON.stringify(list, null, 2))
      if (list.length === 0) return console.log('no policy overrides: every skill follows its class default')
      console.log(
        formatTable(
          ['ID', 'SKILL', 'LEVEL', 'SUBJECT', 'DECISION', 'BY'],
          list.map((p) => [p.id, p.skill, p.level, p.subject, p.decision, p.createdBy]),
        ),
      )
    })

  policies
    .command('set')
    .description('set the override for a skill (or "*") at one level; replaces an existing one')
    .requiredOption('--skill <key>', 'a skill key, or "*" for every skill')
    .addOption(new Option('--level <level>', 'who it applies to').choices(POLICY_LEVELS).makeOptionMandatory())
    .option('--subject <subject>', 'agent (name, alias or id), role, or key id/name; not for global')
    .addOption(new Option('--decision <decision>', 'the decision').choices(POLICY_DECISIONS).makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { skill: string; level: PolicyLevel; subject?: string; decision: PolicyDecision; json?: boolean }>()
      const result = await withPlane(o, (plane) =>
        plane.policies.set({ skill: o.skill, level: o.level, subject: o.subject, decision: o.decision }, localAdmin(), plane.now()),
      )
      if (!result.ok) throw new CliError(result.message)
      if (o.json) return console.log(JSON.stringify(result.policy, null, 2))
      const p = result.policy
      console.log(`policy ${p.id}: ${p.skill} for ${p.level}${p.level === 'global' ? '' : ` ${p.subject}`} is ${p.decision}`)
    })

  policies
    .command('clear <id>')
    .description('remove an override')
    .action(async (id: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions>()
      const cleared = await withPlane(o, (plane) => plane.policies.clear(id, localAdmin()))
      if (!cleared) throw new CliError(`no policy "${id}"`)
      console.log(`cleared policy ${id} (${cleared.skill} for ${cleared.level} ${cleared.subject}: ${cleared.decision})`)
    })
}
