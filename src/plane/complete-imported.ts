import { callAccess } from '../access/index.js'
import { SkillError, subjectsOf } from '../runtime/index.js'
import type { Caller } from '../skill/index.js'
import type { Catalog, Registry } from '../registry/index.js'
import type { Policies } from '../policy/index.js'
import type { Edges } from '../sources/edge/index.js'
import { callerKey, type McpCompletion, type McpCompletionResult, type McpSource } from '../sources/mcp/index.js'

/**
 * completion/complete passed to an imported MCP server, for a caller the gate lets call the skill
 * the completion belongs to (the server's get_prompt for a prompt, read_resource for a template):
 * the same decision as for listing the tool, made anew for every request. Not a call: no audit row.
 */
export async function completeImported(
  p: { sources: { mcp: Pick<McpSource, 'gateSkill' | 'complete'> }; registry: Pick<Registry, 'get'>; catalog: Catalog; policies: Policies; edges: Edges },
  server: string,
  params: McpCompletion,
  options: { caller: Caller; signal?: AbortSignal },
): Promise<McpCompletionResult> {
  const { caller } = options
  const key = p.sources.mcp.gateSkill(server, params.ref.type)
  const skill = key === null ? undefined : p.registry.get(key)
  const agentId = caller.kind === 'agent' ? caller.agentId : null
  const view = { skills: p.catalog, policies: p.policies, sources: { edges: p.edges } }
  if (!skill || callAccess(view, caller, agentId, skill) === null) {
    throw new SkillError('denied', `${caller.name} may not ask MCP server "${server}" for completions: that needs the skill "${key ?? `${server}_…`}"`)
  }
  const subject = subjectsOf(caller, null, null).user
  return p.sources.mcp.complete(server, params, {
    subject,
    signal: options.signal ?? new AbortController().signal,
    caller: callerKey(caller, null),
  })
}
