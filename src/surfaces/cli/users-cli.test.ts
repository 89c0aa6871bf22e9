import { describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { runCli } from '../../test-support/run-cli.js'

describe.each(databases)('skillplane users and groups on $name', (database) => {
  it('adds users and groups, makes keys for users, grants roles through groups, and disables a user with all their keys', async () => {
    const location = await database.create()
    const cli = (...args: string[]) => runCli(location, args)

    const added = cli('users', 'add', 'alice', '--role', 'operator', '--display-name', 'Alice Liddell')
    expect(added.stdout).toMatch(/^added user alice \(id \w{26}\) with role operator\n$/)
    const laptop = cli('keys', 'create', '--name', 'alice-laptop', '--user', 'alice', '--json').json()
    expect(laptop).toMatchObject({ name: 'alice-laptop', role: null, user: { name: 'alice' } })
    // Without --user a key belongs to the user of its name, made when missing.
    expect(cli('keys', 'create', '--name', 'bob', '--role', 'viewer').stdout).toMatch(/^created viewer key "bob" \(id \w{26}\) for user bob\n/)
    expect(cli('keys', 'list').stdout).toMatch(/ID\s+NAME\s+ROLE\s+USER\s+AGENT\s+CREATED\s+REVOKED\n\w{26}\s+alice-laptop\s+-\s+alice\s+-/)

    expect(cli('groups', 'add', 'sre', '--role', 'admin').stdout).toMatch(/^added group sre \(id \w{26}\) with role admin\n$/)
    expect(cli('groups', 'add-member', 'sre', 'alice').stdout).toBe('group sre: role admin, members alice\n')
    const users = cli('users', 'list', '--json').json()
    expect(users.map((u: { name: string; role: string | null; groups: string[]; grantedRole: string | null; displayName: string | null }) => u)).toEqual([
      expect.objectContaining({ name: 'alice', displayName: 'Alice Liddell', role: 'operator', groups: ['sre'], grantedRole: 'admin', disabledAt: null }),
      expect.objectContaining({ name: 'bob', displayName: null, role: null, groups: [], grantedRole: null }),
    ])
    expect(cli('users', 'list').stdout).toMatch(
      /^NAME\s+ID\s+DISPLAY NAME\s+ROLE\s+GROUPS\s+GRANTED\s+DISABLED\nalice\s+\w{26}\s+Alice Liddell\s+operator\s+sre\s+admin\s+-\n/,
    )
    expect(cli('groups', 'list').stdout).toMatch(/^NAME\s+ID\s+ROLE\s+MEMBERS\nsre\s+\w{26}\s+admin\s+alice\n$/)

    let plane = await openTestPlane(database, {}, location)
    expect(await plane.people.keys.authenticate(laptop.key)).toMatchObject({
      kind: 'user',
      name: 'alice',
      role: 'admin',
      displayName: 'Alice Liddell',
      keyId: laptop.id,
    })
    await plane.close()

    expect(cli('users', 'disable', 'alice').stdout).toBe('disabled user alice: 1 key of theirs stopped working\n')
    plane = await openTestPlane(database, {}, location)
    expect(await plane.people.keys.authenticate(laptop.key)).toBeNull()
    await plane.close()
    expect(cli('users', 'enable', 'alice').stdout).toBe('enabled user alice\n')
    expect(cli('groups', 'remove-member', 'sre', 'alice').stdout).toBe('group sre: role admin, members none\n')
    expect(cli('users', 'set-role', 'alice', 'none').stdout).toBe('user alice: role none, granted none\n')
    plane = await openTestPlane(database, {}, location)
    // No role anywhere: a key without its own is a viewer.
    expect(await plane.people.keys.authenticate(laptop.key)).toMatchObject({ name: 'alice', role: 'viewer' })
    await plane.close()

    expect(cli('users', 'add', 'alice')).toMatchObject({ code: 1, stderr: 'skillplane: a user named "alice" exists already\n' })
    expect(cli('keys', 'create', '--name', 'x', '--user', 'ghost')).toMatchObject({ code: 1, stderr: expect.stringContaining('no user "ghost"') })
    expect(cli('users', 'disable', 'ghost')).toMatchObject({ code: 1, stderr: 'skillplane: no user "ghost"\n' })
    expect(cli('users', 'set-role', 'alice', 'root')).toMatchObject({
      code: 1,
      stderr: 'skillplane: unknown role "root": use viewer, operator, admin or none\n',
    })
    expect(cli('groups', 'add-member', 'nope', 'alice')).toMatchObject({ code: 1, stderr: 'skillplane: no group "nope"\n' })
  })
})
