import type { SkillDefinition } from '../skill/index.js'
import { SkillError } from '../runtime/index.js'
import type { SharedMemory } from './memory.js'
import { MemoryError } from './memory-error.js'
import { MEMORY_LIMITS, POOL_NAME, type MemorySizeLimits } from './memory-limits.js'

export const MEMORY_SKILL_KEYS = ['memory_get', 'memory_set', 'memory_delete'] as const

const key = { type: 'string', minLength: 1, maxLength: MEMORY_LIMITS.keyLength, description: 'The entry’s key.' }
const pool = { type: 'string', pattern: POOL_NAME.source, description: 'The pool (default "default").' }

/**
 * Shared memory as skills, so agents reach it through the gate like anything else: reading is
 * safe, writing and deleting are mutating (an agent's write needs approval unless a policy says
 * otherwise). Bound to no agent: an agent gets them by listing them in its `skills`.
 */
export function memorySkills(memory: SharedMemory, limits: MemorySizeLimits): SkillDefinition[] {
  const refuse = (error: unknown): never => {
    throw error instanceof MemoryError ? new SkillError('invalid_input', error.message) : error
  }
  return [
    {
      key: 'memory_get',
      title: 'Read shared memory',
      description: 'Read a value other skills and runs stored in shared memory, by key (and pool). found is false when there is none or it expired.',
      class: 'safe',
      category: 'memory',
      tags: ['memory', 'state'],
      input: { type: 'object', properties: { key, pool }, required: ['key'], additionalProperties: false },
      run: async (input, ctx) => {
        const { key: k, pool: p } = input as { key: string; pool?: string }
        const value = await memory
          .as(ctx.caller.name)
          .get(k, { ...(p !== undefined && { pool: p }) })
          .catch(refuse)
        return value === undefined ? { found: false } : { found: true, value }
      },
    },
    {
      key: 'memory_set',
      title: 'Write shared memory',
      description: `Store a JSON value under a key in shared memory for other skills and runs, replacing any value there; with ttlSeconds it vanishes after that long. Values up to ${limits.maxValueBytes} bytes of JSON.`,
      class: 'mutating',
      category: 'memory',
      tags: ['memory', 'state'],
      input: {
        type: 'object',
        properties: {
          key,
          value: { description: 'Any JSON value.' },
          ttlSeconds: { type: 'integer', minimum: 1, maximum: MEMORY_LIMITS.ttlSeconds, description: 'Seconds until the entry vanishes (default: never).' },
          pool,
        },
        required: ['key', 'value'],
        additionalProperties: false,
      },
      run: async (input, ctx) => {
        const { key: k, value, ttlSeconds, pool: p } = input as { key: string; value: unknown; ttlSeconds?: number; pool?: string }
        return memory
          .as(ctx.caller.name)
          .set(k, value, { ...(p !== undefined && { pool: p }), ...(ttlSeconds !== undefined && { ttlSeconds }) })
          .catch(refuse)
      },
    },
    {
      key: 'memory_delete',
      title: 'Delete from shared memory',
      description: 'Remove an entry from shared memory. deleted is false when there was none.',
      class: 'mutating',
      category: 'memory',
      tags: ['memory', 'state'],
      input: { type: 'object', properties: { key, pool }, required: ['key'], additionalProperties: false },
      run: async (input, ctx) => {
        const { key: k, pool: p } = input as { key: string; pool?: string }
        return {
          deleted: await memory
            .as(ctx.caller.name)
            .delete(k, { ...(p !== undefined && { pool: p }) })
            .catch(refuse),
        }
      },
    },
  ]
}
