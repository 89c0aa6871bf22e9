import { describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { agentCaller, approvalIdOf, openTestPlane } from '../../test-support/fixtures.js'
import { runCli } from '../../test-support/run-cli.js'

const helper = agentCaller('helper')

describe.each(databases)('skillplane approvals approve --scope on $name', (database) => {
  it('approves for the conversation or always, lists and revokes grants, and names bad options', async () => {
    const location = await database.create()
    const cli = (args: string[]) => runCli(location, args)
    let plane = await openTestPlane(database, {}, location)
    const chat = approvalIdOf(await plane.invoke('write_thing', { value: 'one' }, { caller: helper, conversationId: 'chat-1' }))
    const agentWide = approvalIdOf(await plane.invoke('write_thing', { value: 'two' }, { caller: helper }))
    await plane.close()

    const unknown = cli(['approvals', 'approve', chat, '--scope', 'forever'])
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toContain("option '--scope <scope>' argument 'forever' is invalid. Allowed choices are once, conversation, always.")
    expect(cli(['approvals', 'approve', chat, '--scope', 'conversation', '--minutes', '1441'])).toMatchObject({
      code: 1,
      stderr: 'skillplane: minutes must be a whole number from 1 to 1440 (24 h), got 1441\n',
    })
    expect(cli(['approvals', 'reject', chat, '--scope', 'conversation']).stderr).toContain("unknown option '--scope'")

    const approved = cli(['approvals', 'approve', chat, '--scope', 'conversation', '--minutes', '30'])
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain(`${chat}: write_thing (mutating) is approved`)
    expect(approved.stdout).toMatch(
      /grant (\w{26}): helper-key's calls of write_thing for agent helper in conversation chat-1 run without approval, active until \S+Z/,
    )
    const grantId = /grant (\w{26})/.exec(approved.stdout)![1]!

    const listed = cli(['approvals', 'grants', '--json']).json()
    expect(listed).toMatchObject({ items: [{ id: grantId, approvalId: chat, status: 'active', grantedBy: { id: 'local' } }], nextCursor: null })
    expect(cli(['approvals', 'grants']).stdout).toMatch(new RegExp(`${grantId}\\s+write_thing\\s+active\\s+helper\\s+chat-1\\s+helper-key\\s+local:`))

    plane = await openTestPlane(database, {}, location)
    expect(await plane.invoke('write_thing', { value: 'three' }, { caller: helper, conversationId: 'chat-1' })).toMatchObject({ ok: true })
    await plane.close()

    expect(cli(['approvals', 'revoke-grant', grantId, '--json']).json()).toMatchObject({ id: grantId, status: 'revoked', revokedBy: { id: 'local' } })
    expect(cli(['approvals', 'revoke-grant', grantId])).toMatchObject({ code: 1, stderr: expect.stringContaining(`grant ${grantId} was already revoked`) })
    expect(cli(['approvals', 'grants', '--status', 'active']).stdout).toBe('no conversation grants\n')

    const always = cli(['approvals', 'approve', agentWide, '--scope', 'always', '--json']).json()
    expect(always).toMatchObject({ id: agentWide, status: 'approved', policy: { skill: 'write_thing', level: 'agent', subject: 'helper', decision: 'ALWAYS' } })
    expect(cli(['policies', 'list', '--json']).json()).toMatchObject([{ id: always.policy.id }])
  })
})
