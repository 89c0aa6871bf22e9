import type { KeyRole } from '../../../accounts/index.js'
import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

export async function keysCreate(o: GlobalOptions & { name: string; role?: KeyRole; user?: string; agent?: string; json?: boolean }): Promise<void> {
  if (o.agent && o.role) throw new CliError('an agent key has no role: use either --role or --agent')
  if (!o.agent && !o.role && !o.user)
    throw new CliError("give --role viewer|operator|admin, --user NAME (the key follows that user's roles), or --agent NAME for an agent key")
  if (o.name.trim() === '') throw new CliError('--name must not be empty')
  const created = await withStore(o, async (plane) => {
    let agentId: string | null = null
    if (o.agent) {
      agentId = plane.agents.resolve(o.agent) ?? null
      if (!agentId) throw new CliError(`unknown agent "${o.agent}": declare it in the config and run skillplane sync`)
    }
    const role = agentId ? 'agent' : (o.role ?? null)
    return plane.people.keys.create({ name: o.name.trim(), role, agentId, ...(o.user !== undefined && { user: o.user }) }, plane.now(), localAdmin())
  })
  if (o.json) return console.log(JSON.stringify(created, null, 2))
  const user = `user ${created.user.name}`
  if (created.agentId) console.log(`created agent key "${created.name}" (id ${created.id}) for agent ${created.agentId}, ${user}`)
  else if (created.role) console.log(`created ${created.role} key "${created.name}" (id ${created.id}) for ${user}`)
  else console.log(`created key "${created.name}" (id ${created.id}) for ${user}, following their roles`)
  console.log(`key (shown once): ${created.key}`)
}

export async function keysList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const list = await withStore(o, (plane) => plane.people.keys.list())
  if (o.json) return console.log(JSON.stringify(list, null, 2))
  if (list.length === 0) return console.log('no keys')
  console.log(
    formatTable(
      ['ID', 'NAME', 'ROLE', 'USER', 'AGENT', 'CREATED', 'REVOKED'],
      list.map((k) => [k.id, k.name, k.role ?? '-', k.user.name, k.agentId ?? '-', k.createdAt, k.revokedAt ?? '-']),
    ),
  )
}

export async function keysRevoke(idOrName: string, o: GlobalOptions): Promise<void> {
  const n = await withStore(o, (plane) => plane.people.keys.revoke(idOrName, plane.now()))
  if (n === 0) throw new CliError(`no active key with id or name "${idOrName}"`)
  console.log(`revoked ${n} key${n === 1 ? '' : 's'}`)
}
