import { ulid } from 'ulid'
import type { GroupRow, UserRow } from '../store/index.js'
import type { CallerRole } from '../skill/index.js'
import { AccountError } from './account-error.js'
import { MAX_NAME, nameProblem, roleOf, type ChangeActor, type AccountsDeps } from './accounts-deps.js'
import type { Users } from './users.js'

export interface GroupInfo {
  id: string
  name: string
  role: CallerRole | null
  /** Members by user name. */
  members: string[]
  createdAt: string
}

/** Groups: roles granted to several users at once. */
export class Groups {
  constructor(
    private readonly deps: AccountsDeps,
    private readonly users: Users,
  ) {}

  async add(input: { name: string; role?: string | null }, actor: ChangeActor): Promise<GroupInfo> {
    const problem = nameProblem('group', input.name)
    if (problem) throw new AccountError('invalid_input', problem)
    const row: GroupRow = { id: ulid(), name: input.name, role: roleOf(input.role), created_at: this.deps.now() }
    if (!(await this.deps.repo.insertGroup(row))) throw new AccountError('conflict', `a group named "${input.name}" exists already`)
    await this.deps.record('group.added', `group:${row.id}`, actor, { name: row.name, role: row.role })
    return { id: row.id, name: row.name, role: row.role as CallerRole | null, members: [], createdAt: row.created_at }
  }

  async get(idOrName: string): Promise<GroupInfo | undefined> {
    const groups = await this.list()
    return groups.find((g) => g.name === idOrName) ?? groups.find((g) => g.id === idOrName)
  }

  async list(): Promise<GroupInfo[]> {
    const [groups, memberships] = await Promise.all([this.deps.repo.listGroups(), this.deps.repo.memberships()])
    return groups.map((g) => ({
      id: g.id,
      name: g.name,
      role: g.role as CallerRole | null,
      members: memberships.filter((m) => m.group === g.name).map((m) => m.user),
      createdAt: g.created_at,
    }))
  }

  /** Grant the group a role (null: none). */
  async setRole(idOrName: string, role: string | null, actor: ChangeActor): Promise<GroupInfo> {
    const group = await this.#group(idOrName)
    const next = roleOf(role)
    if (group.role !== next) {
      await this.deps.repo.setGroupRole(group.id, next)
      this.deps.changed()
      await this.deps.record('group.role', `group:${group.id}`, actor, { name: group.name, role: next })
    }
    return (await this.get(group.id))!
  }

  async addMember(groupIdOrName: string, userIdOrName: string, actor: ChangeActor): Promise<GroupInfo> {
    const [group, user] = await Promise.all([this.#group(groupIdOrName), this.#user(userIdOrName)])
    if (await this.deps.repo.addMember(group.id, user.id, this.deps.now())) {
      this.deps.changed()
      await this.deps.record('group.member_added', `group:${group.id}`, actor, { name: group.name, user: user.name })
    }
    return (await this.get(group.id))!
  }

  async removeMember(groupIdOrName: string, userIdOrName: string, actor: ChangeActor): Promise<GroupInfo> {
    const [group, user] = await Promise.all([this.#group(groupIdOrName), this.#user(userIdOrName)])
    if (!(await this.deps.repo.removeMember(group.id, user.id))) throw new AccountError('not_found', `${user.name} is not a member of ${group.name}`)
    this.deps.changed()
    await this.deps.record('group.member_removed', `group:${group.id}`, actor, { name: group.name, user: user.name })
    return (await this.get(group.id))!
  }

  async #group(idOrName: string): Promise<GroupRow> {
    const group = await this.deps.repo.findGroup(idOrName)
    if (!group) throw new AccountError('not_found', `no group "${idOrName.slice(0, MAX_NAME)}"`)
    return group
  }

  async #user(idOrName: string): Promise<UserRow> {
    const user = await this.users.row(idOrName)
    if (!user) throw new AccountError('not_found', `no user "${idOrName.slice(0, MAX_NAME)}"`)
    return user
  }
}
