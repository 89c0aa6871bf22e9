import type { Caller } from '../skill/index.js'

/** An agent's id: the kebab-case slug of its name ("Fleet Autonomy" → "fleet-autonomy"). */
export function agentId(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug || 'agent'
}

/** An agent acting as itself (a run, `skillplane mcp --agent`, an export as the agent). */
export function agentCaller(id: string, name: string): Caller {
  return { kind: 'agent', id: `agent:${id}`, name, agentId: id }
}
