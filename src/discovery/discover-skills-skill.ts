import type { SkillDefinition } from '../skill/index.js'
import { SkillError } from '../runtime/index.js'
import type { Catalog } from '../registry/index.js'
import { can } from '../abilities/index.js'
import { DISCOVER_KEY, type Discovery } from './discovery.js'

interface DiscoverInput {
  query: string
  limit?: number
  maxTokens?: number
  agent?: string
  excludeBound?: boolean
}

/** discover_skills as a skill: safe, audited like any call, bound to every agent, and it returns only what its caller may use. */
export function discoverSkillsSkill(discovery: Discovery, catalog: Pick<Catalog, 'resolveAgent'>, agents: string[]): SkillDefinition {
  return {
    key: DISCOVER_KEY,
    title: 'Discover skills',
    description:
      'Find the skills that fit a task, described in plain words, among those you may use now: best first, each with why it ' +
      'matched, its arguments and whether a call needs approval. `select:key1,key2` fetches skills by key.',
    class: 'safe',
    category: 'discovery',
    tags: ['search', 'tools'],
    // Every agent may search: what it finds is only what it may call anyway.
    agents,
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 1_000, description: 'The task in plain words, or select:key1,key2.' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Most results (default 5).' },
        maxTokens: { type: 'integer', minimum: 50, maximum: 100_000, description: 'Cut the list to about this many tokens.' },
        agent: { type: 'string', minLength: 1, description: 'Discover for this agent (name, alias or id); people only.' },
        excludeBound: { type: 'boolean', description: "Only skills the agent could use but isn't bound to yet (admins binding skills)." },
      },
      required: ['query'],
      additionalProperties: false,
    },
    run: async (raw, ctx) => {
      const input = raw as DiscoverInput
      let agent = ctx.agent
      if (input.agent !== undefined) {
        if (ctx.caller.kind === 'agent') throw new SkillError('denied', 'an agent key discovers for its own agent: leave out agent')
        agent = catalog.resolveAgent(input.agent) ?? null
        if (!agent) throw new SkillError('invalid_input', `unknown agent "${input.agent}"`)
      }
      if (input.excludeBound) {
        if (!can(ctx.caller, 'manageSkills')) throw new SkillError('denied', 'excludeBound is for admins binding skills to agents')
        if (!agent) throw new SkillError('invalid_input', 'excludeBound needs the agent whose unbound skills to find (agent)')
      }
      const answer = await discovery.discover(ctx.caller, { ...input, agent, onBehalfOf: ctx.onBehalfOf })
      // A fetch by key teaches nothing about how people ask for a skill.
      if (!/^select:/i.test(input.query.trim()))
        discovery.remember(
          ctx.conversationId,
          input.query,
          { caller: ctx.caller, agent },
          answer.results.map((r) => r.key),
        )
      return answer
    },
  }
}
