import type { Kysely, Selectable } from 'kysely'
import type { Database, GroupsTable, UsersTable } from './database.js'

export type UserRow = Selectable<UsersTable>
export type GroupRow = Selectable<GroupsTable>

/** Users, groups and who belongs to which. */
export class UserRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Insert a user; false when the name (or issuer and subject) is taken. */
  async insert(row: UserRow): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
  }

  find(idOrName: string): Promise<UserRow | undefined> {
    return (
      this.db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb.or([eb('name', '=', idOrName), eb('id', '=', idOrName)]))
        // A name wins over another user's id that happens to read the same.
        .orderBy((eb) => eb.case().when('name', '=', idOrName).then(0).else(1).end())
        .executeTakeFirst()
    )
  }

  /** A user by id only (a name is never taken for an id here). */
  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** The user an identity provider's subject is. */
  findExternal(issuer: string, subject: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst()
  }

  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('name').execute()
  }

  async update(id: string, changes: Partial<Pick<UserRow, 'disabled_at' | 'role' | 'display_name'>>): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute()
  }

  /** The roles granted to a user itself and through its groups (unset ones left out). */
  async grantedRoles(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('users')
      .select('role')
      .where('id', '=', userId)
      .where('role', 'is not', null)
      .unionAll(
        this.db
          .selectFrom('group_members')
          .innerJoin('groups', 'groups.id', 'group_members.group_id')
          .select('groups.role')
          .where('group_members.user_id', '=', userId)
          .where('groups.role', 'is not', null),
      )
      .execute()
    return rows.map((r) => r.role!)
  }

  async insertGroup(row: GroupRow): Promise<boolean> {
    const result = await this.db
      .insertInto('groups')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
  }

  findGroup(idOrName: string): Promise<GroupRow | undefined> {
    return this.db
      .selectFrom('groups')
      .selectAll()
      .where((eb) => eb.or([eb('name', '=', idOrName), eb('id', '=', idOrName)]))
      .orderBy((eb) => eb.case().when('name', '=', idOrName).then(0).else(1).end())
      .executeTakeFirst()
  }

  listGroups(): Promise<GroupRow[]> {
    return this.db.selectFrom('groups').selectAll().orderBy('name').execute()
  }

  async setGroupRole(id: string, role: string | null): Promise<void> {
    await this.db.updateTable('groups').set({ role }).where('id', '=', id).execute()
  }

  /** Add a member; false when they were one already. */
  async addMember(groupId: string, userId: string, now: string): Promise<boolean> {
    const result = await this.db
      .insertInto('group_members')
      .values({ group_id: groupId, user_id: userId, created_at: now })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
  }

  /** Remove a member; false when they were none. */
  async removeMember(groupId: string, userId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst()
    return Number(result.numDeletedRows) === 1
  }

  /** Every membership as (group name, user name), ordered by both. */
  memberships(): Promise<Array<{ group: string; user: string }>> {
    return this.db
      .selectFrom('group_members')
      .innerJoin('groups', 'groups.id', 'group_members.group_id')
      .innerJoin('users', 'users.id', 'group_members.user_id')
      .select(['groups.name as group', 'users.name as user'])
      .orderBy('groups.name')
      .orderBy('users.name')
      .execute()
  }
}
