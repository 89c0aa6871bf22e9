import type { GroupInfo } from '../../../accounts/index.js'
import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { parseRole } from '../parse-role.js'

export async function groupsAdd(name: string, o: GlobalOptions & { role?: string; json?: boolean }): Promise<void> {
  const group = await withStore(o, (plane) => plane.people.groups.add({ name, role: o.role ?? null }, localAdmin()))
  if (o.json) return console.log(JSON.stringify(group, null, 2))
  console.log(`added group ${group.name} (id ${group.id})${group.role ? ` with role ${group.role}` : ''}`)
}

export async function groupsList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const groups = await withStore(o, (plane) => plane.people.groups.list())
  if (o.json) return console.log(JSON.stringify(groups, null, 2))
  if (groups.length === 0) return console.log('no groups')
  console.log(
    formatTable(
      ['NAME', 'ID', 'ROLE', 'MEMBERS'],
      groups.map((g) => [g.name, g.id, g.role ?? '-', g.members.join(',') || '-']),
    ),
  )
}

export async function groupsSetRole(name: string, role: string, o: GlobalOptions): Promise<void> {
  console.log(groupLine(await withStore(o, (plane) => plane.people.groups.setRole(name, parseRole(role), localAdmin()))))
}

export async function groupsAddMember(group: string, user: string, o: GlobalOptions): Promise<void> {
  console.log(groupLine(await withStore(o, (plane) => plane.people.groups.addMember(group, user, localAdmin()))))
}

export async function groupsRemoveMember(group: string, user: string, o: GlobalOptions): Promise<void> {
  console.log(groupLine(await withStore(o, (plane) => plane.people.groups.removeMember(group, user, localAdmin()))))
}

function groupLine(group: GroupInfo): string {
  return `group ${group.name}: role ${group.role ?? 'none'}, members ${group.members.join(', ') || 'none'}`
}
