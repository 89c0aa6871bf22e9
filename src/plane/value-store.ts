import { ConnectionValueError, type Connections, type ValueKind, type ValueOwner } from '../connections/index.js'
import type { Caller } from '../skill/index.js'
import type { ValueStore } from './plane.js'

const LIBRARY: Caller = { kind: 'user', id: 'library', name: 'library', role: 'admin' }

/** Secrets or settings with agents named as people name them (name, alias or id). */
export function valueStore(connections: Connections, kind: ValueKind, resolveAgent: (label: string) => string | undefined): ValueStore {
  const owner = (given: ValueOwner = {}): ValueOwner => {
    if (given.agent === undefined || given.agent === null) return { user: given.user ?? null }
    if (typeof given.agent !== 'string' || given.agent.trim() === '')
      throw new ConnectionValueError(`the agent of a ${kind} must be a non-empty name (leave it out for the global value)`)
    const agent = resolveAgent(given.agent)
    if (!agent) throw new ConnectionValueError(`unknown agent "${given.agent}": declare it in the config and run skillplane sync`)
    return { agent, user: given.user ?? null }
  }
  return {
    set: async (name, value, given, by = LIBRARY) => connections.set(kind, name, value, owner(given), by),
    delete: async (name, given, by = LIBRARY) => connections.delete(kind, name, owner(given), by),
    list: () => connections.list(kind),
  }
}
