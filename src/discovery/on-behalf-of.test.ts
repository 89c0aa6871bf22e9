import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator, tokenLength } from '../test-support/fixtures.js'
import { defineSkill, type Caller } from '../skill/index.js'
import type { Skillplane } from '../agents/index.js'
import { toAISDKTools } from '../ai-sdk/index.js'

describe.each(databases)('discovery on behalf of a person on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  it('shows the connection state that person’s values give, as the agent’s tool list does', async () => {
    const plane = await openTestPlane(database, { skills: [tokenLength] })
    planes.push(plane)
    const helper = agentCaller('helper')
    const alice = { ...operator, id: 'k-alice', name: 'alice' }
    const bob = { ...operator, id: 'k-bob', name: 'bob' }
    await plane.values.secrets.set('GITHUB_TOKEN', 'alices-own-token', { user: 'alice' })
    const connection = async (onBehalfOf?: Caller) => {
      const envelope = await plane.invoke('discover_skills', { query: 'which token' }, { caller: helper, ...(onBehalfOf && { onBehalfOf }) })
      if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
      const found = (envelope.data as { results: Array<{ key: string; connection: unknown }> }).results.find((r) => r.key === 'token_length')
      return found?.connection
    }
    const toolSaysReady = (onBehalfOf?: Caller) =>
      !(
        toAISDKTools(plane, { caller: helper, ...(onBehalfOf && { onBehalfOf }) }) as Record<string, { description?: string }>
      ).token_length?.description?.includes('Not connected')
    expect(await connection(alice)).toEqual({ state: 'ready', missing: { secrets: [], settings: [] } })
    expect(toolSaysReady(alice)).toBe(true)
    for (const onBehalfOf of [bob, undefined]) {
      expect(await connection(onBehalfOf)).toEqual({ state: 'needs_auth', missing: { secrets: ['GITHUB_TOKEN'], settings: [] } })
      expect(toolSaysReady(onBehalfOf)).toBe(false)
    }
  })

  it('leaves out what the person’s policy denies or role forbids and asks where it asks, as the agent’s tool list and its calls do', async () => {
    const writeNote = defineSkill({
      key: 'write_note',
      description: 'Write a note to the shared board',
      class: 'safe',
      agents: ['Helper'],
      run: () => 'written',
    })
    const eraseBoard = defineSkill({
      key: 'erase_board',
      description: 'Erase the shared note board',
      class: 'mutating',
      agents: ['Helper'],
      run: () => 'erased',
    })
    const plane = await openTestPlane(database, { skills: [tokenLength, writeNote, eraseBoard] })
    planes.push(plane)
    const helper = agentCaller('helper')
    const alice = { ...operator, id: 'k-alice', name: 'alice' }
    const bob = { ...operator, id: 'k-bob', name: 'bob' }
    // A viewer may run no mutating skill, so neither may an agent acting for one.
    const carol: Caller = { kind: 'user', id: 'k-carol', name: 'carol', role: 'viewer' }
    await plane.policies.set({ skill: 'write_note', level: 'user', subject: alice.id, decision: 'DENY' }, admin, plane.now())
    await plane.policies.set({ skill: 'token_length', level: 'user', subject: bob.id, decision: 'ASK' }, admin, plane.now())
    const found = async (onBehalfOf: Caller) => {
      const envelope = await plane.invoke('discover_skills', { query: 'note token board', limit: 10 }, { caller: helper, onBehalfOf })
      if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
      return Object.fromEntries((envelope.data as { results: Array<{ key: string; needsApproval: boolean }> }).results.map((r) => [r.key, r.needsApproval]))
    }
    const tools = (onBehalfOf: Caller) => Object.keys(toAISDKTools(plane, { caller: helper, onBehalfOf })).sort()
    expect(await found(alice)).toEqual({ token_length: false, erase_board: true })
    expect(tools(alice)).toEqual(['erase_board', 'token_length'])
    expect(await plane.invoke('write_note', {}, { caller: helper, onBehalfOf: alice })).toMatchObject({ ok: false, error: { code: 'denied' } })
    expect(await found(bob)).toEqual({ token_length: true, write_note: false, erase_board: true })
    expect(tools(bob)).toEqual(['erase_board', 'token_length', 'write_note'])
    expect(await found(carol)).toEqual({ token_length: false, write_note: false })
    expect(tools(carol)).toEqual(['token_length', 'write_note'])
    expect(await plane.invoke('erase_board', {}, { caller: helper, onBehalfOf: carol })).toMatchObject({ ok: false, error: { code: 'denied' } })
  })
})
