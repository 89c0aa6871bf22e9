import { scrubValue } from '../audit/index.js'
import type { SkillMemory } from '../skill/index.js'
import type { SharedMemory } from './memory.js'

/**
 * A call's `ctx.memory`, written as its caller. Memory outlives the call and reaches other
 * callers and prompts: the secrets injected into the call are scrubbed from what it writes.
 */
export function callMemory(memory: SharedMemory, actor: string, scrub: ReadonlySet<string>): SkillMemory {
  const own = memory.as(actor)
  const clean = <T>(value: T): T => (scrub.size > 0 ? (scrubValue(value, scrub) as T) : value)
  return {
    get: (key, options) => own.get(key, options),
    set: (key, value, options) => own.set(clean(key), clean(value), options),
    delete: (key, options) => own.delete(key, options),
    list: (prefix, options) => own.list(prefix, options),
  }
}
