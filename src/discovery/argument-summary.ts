import type { JsonSchema } from '../skill/index.js'

/** A schema's top-level arguments in one line, `name: type` and `name?: type` for optional ones. */
export function argumentSummary(schema: JsonSchema, edges?: string[]): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((schema.required as string[] | undefined) ?? [])
  const parts = Object.entries(properties).map(([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(property)}`)
  if (edges) parts.push(`edge_id: ${edges.length ? edges.map((e) => JSON.stringify(e)).join(' | ') : 'string'}`)
  if (parts.length === 0) return schema.type === 'object' || schema.type === undefined ? 'none' : `input: ${typeOf(schema)}`
  return parts.join(', ')
}

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return (
      schema.enum
        .slice(0, 6)
        .map((v) => JSON.stringify(v))
        .join(' | ') + (schema.enum.length > 6 ? ' | …' : '')
    )
  if (schema.type === 'array') return `${typeOf((schema.items ?? {}) as JsonSchema)}[]`
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  if (typeof schema.type === 'string') return schema.type
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return ((schema.anyOf ?? schema.oneOf) as JsonSchema[]).map(typeOf).join(' | ')
  return 'any'
}
