import { z } from 'zod'
import { NO_CALLER_CLIENT } from '../runtime/index.js'
import type { DefinedSkill } from '../skill/define-skill.js'
import type { SkillContext } from '../skill/skill-types.js'
import { admin, silentLogger } from './fixtures.js'

const unavailable = () => Promise.reject(new Error('runSkill gives no shared memory or learnings'))

/**
 * Run a code skill's executor the way a pipeline would, without one: the input parsed by its zod
 * schema (defaults applied, bad input throws), a minimal context, the result checked against its
 * output schema (a result that does not match throws).
 */
export async function runSkill(skill: DefinedSkill<any, any>, input: unknown, signal: AbortSignal = new AbortController().signal): Promise<any> {
  const parsed = (skill.input as z.ZodType).parse(input)
  const ctx: SkillContext = {
    callId: 'test-call',
    parentCallId: null,
    caller: admin,
    agent: null,
    conversationId: null,
    onBehalfOf: null,
    edgeId: null,
    signal,
    logger: silentLogger(),
    progress: () => {},
    client: NO_CALLER_CLIENT,
    secrets: {
      get: (name) => {
        throw new Error(`runSkill gives no secrets (asked for ${name})`)
      },
      conceal: () => {},
    },
    settings: {
      get: (name) => {
        throw new Error(`runSkill gives no settings (asked for ${name})`)
      },
    },
    invoke: () => {
      throw new Error('invoke is not available in runSkill')
    },
    memory: { get: unavailable, set: unavailable, delete: unavailable, list: unavailable },
    learn: unavailable,
  }
  const result = await skill.run!(parsed as never, ctx)
  return (skill.output as z.ZodType).parse(result)
}
