import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { agentCaller, openTestPlane, operator } from '../test-support/fixtures.js'
import { defineSkill, type Caller } from '../skill/index.js'
import type { Skillplane } from '../agents/index.js'
import { toAISDKTools } from '../ai-sdk/index.js'

const tokenLength = defineSkill({
  key: 'token_length',
  description: 'Tells which token it was given, by its length',
  class: 'safe',
  agents: ['Helper'],
  secrets: ['GITHUB_TOKEN'],
  run: (_input, ctx) => ctx.secrets.get('GITHUB_TOKEN').length,
})

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
})
