import type { ResolvedHttpSkill } from '../../config/index.js'
import type { JsonSchema } from '../../skill/index.js'
import { hostOf } from './allow-hosts.js'
import { classOfMethod, type HttpOperation, type InputParameter } from './http-operation.js'

/** An `httpSkills` entry as an operation: placeholders from the path, `query` names, the rest (or `body`) as the JSON body. */
export function configOperation(skill: ResolvedHttpSkill): HttpOperation {
  const path = [...skill.url.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!)
  const parameters: InputParameter[] = [
    ...path.map((name) => ({ property: name, in: 'path' as const, name })),
    ...skill.query.map((name) => ({ property: name, in: 'query' as const, name })),
  ]
  const properties = Object.keys((skill.input.properties as Record<string, unknown> | undefined) ?? {})
  const used = new Set([...path, ...skill.query])
  const withBody = skill.method === 'POST' || skill.method === 'PUT' || skill.method === 'PATCH'
  const fields =
    skill.body === undefined
      ? withBody
        ? Object.fromEntries(properties.filter((p) => !used.has(p)).map((p) => [p, p]))
        : {}
      : Array.isArray(skill.body)
        ? Object.fromEntries(skill.body.map((p) => [p, p]))
        : skill.body
  return {
    key: skill.key,
    ...(skill.title && { title: skill.title }),
    description: skill.description,
    class: skill.class ?? classOfMethod(skill.method),
    category: skill.category,
    tags: ['http', ...skill.tags],
    agents: skill.agents,
    input: skill.input as JsonSchema,
    method: skill.method,
    url: skill.url,
    parameters,
    headers: skill.headers,
    ...(skill.oauth && { oauth: skill.oauth }),
    body: skill.body !== undefined || (withBody && Object.keys(fields).length > 0) ? { fields } : null,
    allowHosts: skill.allowHosts ?? [hostOf(skill.url.replace(/\{[^{}]*\}/g, 'x'))],
    maxResponseBytes: skill.maxResponseBytes,
    ...(skill.timeoutMs && { timeoutMs: skill.timeoutMs }),
  }
}
