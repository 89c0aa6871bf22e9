import { describe, expect, it } from 'vitest'
import { applyDelta, rebuildRequest, requestDelta, type ModelRequest } from './model-request.js'

const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] })
const tools = [{ name: 'echo', description: 'Echoes' }]

describe('model requests stored as changes', () => {
  it('stores each message of a growing conversation once, and rebuilds every request exactly', () => {
    const requests: ModelRequest[] = []
    let messages: unknown[] = []
    for (let i = 0; i < 50; i++) {
      messages = [...messages, user(`turn ${i}`)]
      requests.push({ system: 'You help.', tools, messages })
    }
    const deltas = requests.map((request, i) => requestDelta(requests[i - 1], request))
    // The first carries everything; each later one only its new message, with no system prompt or tools again.
    expect(deltas[0]).toEqual({ keep: 0, messages: [user('turn 0')], system: 'You help.', tools })
    expect(deltas[49]).toEqual({ keep: 49, messages: [user('turn 49')] })
    expect(deltas.reduce((n, d) => n + d.messages.length, 0)).toBe(50)
    for (let i = 0; i < requests.length; i++) expect(rebuildRequest(deltas.slice(0, i + 1))).toEqual(requests[i])
  })

  it('keeps what changed: the system prompt, the tools offered, a conversation that was rewritten', () => {
    const before: ModelRequest = { system: 'A', tools, messages: [user('one'), user('two')] }
    const after: ModelRequest = { system: null, tools: [], messages: [user('one'), user('TWO'), user('three')] }
    const delta = requestDelta(before, after)
    expect(delta).toEqual({ keep: 1, messages: [user('TWO'), user('three')], system: null, tools: [] })
    expect(applyDelta(before, delta)).toEqual(after)
  })
})
