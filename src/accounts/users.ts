import { ulid } from 'ulid'
import type { GroupRow, UserRow } from '../store/index.js'
import type { CallerRole } from '../skill/index.js'
import { highestRole } from '../abilities/index.js'
import { AccountError } from './account-error.js'
import { CONTROL, MAX_NAME, nameProblem, roleOf, withoutControls, type ChangeActor, type AccountsDeps } from './accounts-deps.js'

export interface UserInfo {
  id: string
  name: string
  displayName: string | null
  /** The role granted to the user itself. */
  role: CallerRole | null
  /** The groups the user is a member of, by name. */
  groups: string[]
  /** The highest role granted to the user itself or through a group: the ceiling of every key of theirs. */
  grantedRole: CallerRole | null
  /** An identity provider's user (issuer and subject), or null for a local one. */
  external: { issuer: string; subject: string } | null
  createdAt: string
  disabledAt: string | null
}

/** Users: the identity behind every key; disabling one stops all of their keys at once. */
export class Users {
  constructor(private readonly deps: AccountsDeps) {}

  async add(input: { name: string; displayName?: string | null; role?: string | null }, actor: ChangeActor): Promise<UserInfo> {
    const problem = nameProblem('user', input.name)
    if (problem) throw new AccountError('invalid_input', problem)
    const displayName = input.displayName?.trim() || null
    if (displayName !== null && (displayName.length > MAX_NAME || CONTROL.test(displayName)))
      throw new AccountError('invalid_input', `a display name has at most ${MAX_NAME} printable characters`)
    const row: UserRow = {
      id: ulid(),
      name: input.name,
      display_name: displayName,
      role: roleOf(input.role),
      issuer: null,
      subject: null,
      created_at: this.deps.now(),
      disabled_at: null,
    }
    if (!(await this.deps.repo.insert(row))) throw new AccountError('conflict', `a user named "${input.name}" exists already`)
    await this.deps.record('user.added', `user:${row.id}`, actor, { name: row.name, displayName: row.display_name, role: row.role })
    return (await this.get(row.id))!
  }

  /** The user of this name, made (with no role) when there is none: what a key created for a name belongs to. */
  async ensure(name: string, actor: ChangeActor): Promise<UserRow> {
    const found = await this.deps.repo.find(name)
    if (found?.name === name) return found
    const problem = nameProblem('user', name)
    if (problem) throw new AccountError('invalid_input', problem)
    const row: UserRow = { id: ulid(), name, display_name: null, role: null, issuer: null, subject: null, created_at: this.deps.now(), disabled_at: null }
    // Made by someone else meanwhile: theirs is the one.
    if (!(await this.deps.repo.insert(row))) return (await this.deps.repo.find(name))!
    await this.deps.record('user.added', `user:${row.id}`, actor, { name, displayName: null, role: null })
    return row
  }

  /**
   * The user an identity provider's subject is, made at first sign-in (just in time). Its own role
   * and display name follow the provider at every sign-in or token (null role: the provider grants
   * none; skillplane's groups still may). A new user takes the provider's username, or that name
   * with the provider's host when a local user has it, or with a random suffix: a provider's user
   * never becomes a local one.
   */
  async fromProvider(
    claims: { issuer: string; subject: string; name: string; displayName: string | null; role: CallerRole | null },
    actor: ChangeActor,
  ): Promise<UserRow> {
    const found = await this.deps.repo.findExternal(claims.issuer, claims.subject)
    const displayName = (claims.displayName && withoutControls(claims.displayName).slice(0, MAX_NAME)) || null
    if (found) {
      if (found.role === claims.role && found.display_name === displayName) return found
      await this.deps.repo.update(found.id, { role: claims.role, display_name: displayName })
      this.deps.changed()
      if (found.role !== claims.role)
        await this.deps.record('user.role', `user:${found.id}`, actor, { name: found.name, role: claims.role, from: 'identity provider' })
      return { ...found, role: claims.role, display_name: displayName }
    }
    const base = withoutControls(claims.name)
      .trim()
      .slice(0, MAX_NAME - 40)
    const host = new URL(claims.issuer).host
    // Taken names (a local user's, one a provider user chose to squat) fall back to one nobody can claim ahead.
    const names = [base, `${base}@${host}`].filter((name) => nameProblem('user', name) === null)
    for (const name of [...names, `${base || 'user'}@${host}#${ulid().slice(-10).toLowerCase()}`]) {
      const row: UserRow = {
        id: ulid(),
        name,
        display_name: displayName,
        role: claims.role,
        issuer: claims.issuer,
        subject: claims.subject,
        created_at: this.deps.now(),
        disabled_at: null,
      }
      if (await this.deps.repo.insert(row)) {
        await this.deps.record('user.added', `user:${row.id}`, actor, { name, displayName, role: claims.role, issuer: claims.issuer, subject: claims.subject })
        return row
      }
      // Made by a sign-in on another manager at the same moment: that one is the user.
      const raced = await this.deps.repo.findExternal(claims.issuer, claims.subject)
      if (raced) return raced
    }
    throw new AccountError('conflict', `no free user name for ${claims.name} of ${claims.issuer}`)
  }

  /** A user by name or id. */
  async get(idOrName: string): Promise<UserInfo | undefined> {
    const row = await this.deps.repo.find(idOrName)
    if (!row) return undefined
    const [groups, memberships] = await Promise.all([this.deps.repo.listGroups(), this.deps.repo.memberships()])
    return toInfo(row, groups, memberships)
  }

  /** The row of a user id (never a name): for sessions, which name their user by id. */
  rowById(id: string): Promise<UserRow | undefined> {
    return this.deps.repo.findById(id)
  }

  /** The row behind a user name or id, for what builds on users (keys). */
  row(idOrName: string): Promise<UserRow | undefined> {
    return this.deps.repo.find(idOrName)
  }

  async list(): Promise<UserInfo[]> {
    const [rows, groups, memberships] = await Promise.all([this.deps.repo.list(), this.deps.repo.listGroups(), this.deps.repo.memberships()])
    return rows.map((row) => toInfo(row, groups, memberships))
  }

  /** The highest role granted to the user itself or through its groups; null for none. */
  async grantedRole(userId: string): Promise<CallerRole | null> {
    return highestRole(await this.deps.repo.grantedRoles(userId))
  }

  /** Disable a user: every key and session of theirs stops authenticating (here at once, on other managers within a second); their sessions end. */
  async disable(idOrName: string, actor: ChangeActor): Promise<UserInfo> {
    const user = await this.#update(idOrName, actor, 'user.disabled', (row) => (row.disabled_at === null ? { disabled_at: this.deps.now() } : null))
    await this.deps.disabled?.(user.id)
    return user
  }

  enable(idOrName: string, actor: ChangeActor): Promise<UserInfo> {
    return this.#update(idOrName, actor, 'user.enabled', (row) => (row.disabled_at !== null ? { disabled_at: null } : null))
  }

  /** Grant the user a role of its own (null: none; its groups' roles still apply). */
  setRole(idOrName: string, role: string | null, actor: ChangeActor): Promise<UserInfo> {
    const next = roleOf(role)
    return this.#update(idOrName, actor, 'user.role', (row) => (row.role !== next ? { role: next } : null))
  }

  async #update(
    idOrName: string,
    actor: ChangeActor,
    kind: string,
    change: (row: UserRow) => Partial<Pick<UserRow, 'disabled_at' | 'role'>> | null,
  ): Promise<UserInfo> {
    const row = await this.deps.repo.find(idOrName)
    if (!row) throw new AccountError('not_found', `no user "${idOrName.slice(0, MAX_NAME)}"`)
    const changes = change(row)
    if (changes) {
      await this.deps.repo.update(row.id, changes)
      this.deps.changed()
      await this.deps.record(kind, `user:${row.id}`, actor, { name: row.name, ...changes })
    }
    return (await this.get(row.id))!
  }
}

function toInfo(row: UserRow, groups: readonly GroupRow[], memberships: ReadonlyArray<{ group: string; user: string }>): UserInfo {
  const mine = memberships.filter((m) => m.user === row.name).map((m) => m.group)
  const roles = [row.role, ...groups.filter((g) => mine.includes(g.name)).map((g) => g.role)].filter((r): r is string => r !== null)
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    role: row.role as CallerRole | null,
    groups: mine,
    grantedRole: highestRole(roles),
    external: row.issuer !== null && row.subject !== null ? { issuer: row.issuer, subject: row.subject } : null,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  }
}
