import { Option, type Command } from 'commander'
import type { KeyRole } from '../../../auth/index.js'
import { withPlane, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys')

  keys
    .command('create')
    .description('create an API key; the key is printed once and stored only as a hash')
    .requiredOption('--name <name>', 'who or what the key is for')
    .addOption(new Option('--role <role>', 'viewer, operator or admin (agent keys: use --agent)').choices(['viewer', 'operator', 'admin']))
    .option('--agent <agent>', 'make an agent key acting for this agent (name, alias or id)')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { name: string; role?: KeyRole; agent?: string; json?: boolean }>()
      if (o.agent && o.role) throw new CliError('an agent key has no role: use either --role or --agent')
      if (!o.agent && !o.role) throw new CliError('give --role viewer|operator|admin, or --agent NAME for an agent key')
      if (o.name.trim() === '') throw new CliError('--name must not be empty')
      const created = await withPlane(o, async (plane) => {
        let agentId: string | null = null
        if (o.agent) {
          agentId = plane.catalog.resolveAgent(o.agent) ?? null
          if (!agentId) throw new CliError(`unknown agent "${o.agent}": declare it in the config and run skillplane sync`)
        }
        return plane.keys.create({ name: o.name.trim(), role: agentId ? 'agent' : o.role!, agentId }, plane.now())
      })
      if (o.json) return console.log(JSON.stringify(created, null, 2))
      console.log(`created ${created.role} key "${created.name}" (id ${created.id})${created.agentId ? ` for agent ${created.agentId}` : ''}`)
      console.log(`key (shown once): ${created.key}`)
    })

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { json?: boolean }>()
      const list = await withPlane(o, (plane) => plane.keys.list())
      if (o.json) return console.log(JSON.stringify(list, null, 2))
      if (list.length === 0) return console.log('no keys')
      console.log(
        formatTable(
          ['ID', 'NAME', 'ROLE', 'AGENT', 'CREATED', 'REVOKED'],
          list.map((k) => [k.id, k.name, k.role, k.agentId ?? '-', k.createdAt, k.revokedAt ?? '-']),
        ),
      )
    })

  keys
    .command('revoke <idOrName>')
    .description('revoke a key by id or name')
    .action(async (idOrName: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions>()
      const n = await withPlane(o, (plane) => plane.keys.revoke(idOrName, plane.now()))
      if (n === 0) throw new CliError(`no active key with id or name "${idOrName}"`)
      console.log(`revoked ${n} key${n === 1 ? '' : 's'}`)
    })
}
