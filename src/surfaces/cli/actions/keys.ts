import type { KeyRole } from '../../../auth/index.js'
import { withPlane, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

export async function keysCreate(o: GlobalOptions & { name: string; role?: KeyRole; agent?: string; json?: boolean }): Promise<void> {
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
}

export async function keysList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const list = await withPlane(o, (plane) => plane.keys.list())
  if (o.json) return console.log(JSON.stringify(list, null, 2))
  if (list.length === 0) return console.log('no keys')
  console.log(
    formatTable(
      ['ID', 'NAME', 'ROLE', 'AGENT', 'CREATED', 'REVOKED'],
      list.map((k) => [k.id, k.name, k.role, k.agentId ?? '-', k.createdAt, k.revokedAt ?? '-']),
    ),
  )
}

export async function keysRevoke(idOrName: string, o: GlobalOptions): Promise<void> {
  const n = await withPlane(o, (plane) => plane.keys.revoke(idOrName, plane.now()))
  if (n === 0) throw new CliError(`no active key with id or name "${idOrName}"`)
  console.log(`revoked ${n} key${n === 1 ? '' : 's'}`)
}
