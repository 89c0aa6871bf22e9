import { vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ElicitRequestSchema, type ElicitResult, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js'

/**
 * A real SDK server (skillplane's side) and a person's client in memory; the client holds each
 * question until the test answers it. `until` lets fake timers run until a condition holds.
 */
export async function heldElicitation(
  capabilities: ServerCapabilities = {},
  elicitation: { form?: Record<string, unknown>; url?: Record<string, unknown> } = { form: {} },
) {
  const server = new Server({ name: 'skillplane', version: '1.0.0' }, { capabilities })
  const client = new Client({ name: 'person', version: '1.0.0' }, { capabilities: { elicitation } })
  let answer!: (result: ElicitResult) => void
  let asked = false
  client.setRequestHandler(ElicitRequestSchema, () => {
    asked = true
    return new Promise<ElicitResult>((resolve) => (answer = resolve))
  })
  const [near, far] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(near), client.connect(far)])
  const until = async (condition: () => boolean) => {
    while (!condition()) await vi.advanceTimersByTimeAsync(0)
  }
  return { server, answer: (result: ElicitResult) => answer(result), until, asked: () => asked }
}
