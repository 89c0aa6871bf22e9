import { callAccess, type AccessView } from '../../access/index.js'
import type { Registry } from '../../registry/index.js'
import { SkillError, subjectsOf } from '../../runtime/index.js'
import type { Caller } from '../../skill/index.js'
import { callerKey } from './caller-key.js'
import type { McpCompletion, McpCompletionResult, McpSource } from './mcp-source.js'

/**
 * completion/complete passed to an imported MCP server, for a caller the gate lets call the skill
 * the completion belongs to (the server's get_prompt for a prompt, read_resource for a template):
 * the same decision as for listing the tool, made anew for every request. Not a call: no audit row.
 */
export async function completeImported(
  deps: { mcp: Pick<McpSource, 'gateSkill' | 'complete'>; registry: Pick<Registry, 'get'>; access: AccessView },
  server: string,
  params: McpCompletion,
  options: { caller: Caller; signal?: AbortSignal },
): Promise<McpCompletionResult> {
  const { caller } = options
  const key = deps.mcp.gateSkill(server, params.ref.type)
  const skill = key === null ? undefined : deps.registry.get(key)
  const agentId = caller.kind === 'agent' ? caller.agentId : null
  if (!skill || callAccess(deps.access, caller, agentId, skill) === null) {
    throw new SkillError('denied', `${caller.name} may not ask MCP server "${server}" for completions: that needs the skill "${key ?? `${server}_…`}"`)
  }
  const subject = subjectsOf(caller, null, null).user
  return deps.mcp.complete(server, params, {
    subject,
    signal: options.signal ?? new AbortController().signal,
    caller: callerKey(caller, null),
  })
}
