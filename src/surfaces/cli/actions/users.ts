import type { UserInfo } from '../../../accounts/index.js'
import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { parseRole } from '../parse-role.js'

export async function usersAdd(name: string, o: GlobalOptions & { role?: string; displayName?: string; json?: boolean }): Promise<void> {
  const user = await withStore(o, (plane) => plane.people.users.add({ name, role: o.role ?? null, displayName: o.displayName ?? null }, localAdmin()))
  if (o.json) return console.log(JSON.stringify(user, null, 2))
  console.log(`added user ${user.name} (id ${user.id})${user.role ? ` with role ${user.role}` : ''}`)
}

export async function usersList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const users = await withStore(o, (plane) => plane.people.users.list())
  if (o.json) return console.log(JSON.stringify(users, null, 2))
  if (users.length === 0) return console.log('no users')
  console.log(
    formatTable(
      ['NAME', 'ID', 'DISPLAY NAME', 'ROLE', 'GROUPS', 'GRANTED', 'DISABLED'],
      users.map((u) => [u.name, u.id, u.displayName ?? '-', u.role ?? '-', u.groups.join(',') || '-', u.grantedRole ?? '-', u.disabledAt ?? '-']),
    ),
  )
}

export async function usersDisable(name: string, o: GlobalOptions): Promise<void> {
  const { user, keys } = await withStore(o, async (plane) => {
    const user = await plane.people.users.disable(name, localAdmin())
    return { user, keys: (await plane.people.keys.list()).filter((k) => k.user.id === user.id && k.revokedAt === null).length }
  })
  console.log(`disabled user ${user.name}: ${keys} key${keys === 1 ? '' : 's'} of theirs stopped working`)
}

export async function usersEnable(name: string, o: GlobalOptions): Promise<void> {
  const user = await withStore(o, (plane) => plane.people.users.enable(name, localAdmin()))
  console.log(`enabled user ${user.name}`)
}

export async function usersSetRole(name: string, role: string, o: GlobalOptions): Promise<void> {
  const user = await withStore(o, (plane) => plane.people.users.setRole(name, parseRole(role), localAdmin()))
  console.log(roleLine(user))
}

function roleLine(user: UserInfo): string {
  return `user ${user.name}: role ${user.role ?? 'none'}, granted ${user.grantedRole ?? 'none'}${user.groups.length > 0 ? ` (with groups ${user.groups.join(', ')})` : ''}`
}
