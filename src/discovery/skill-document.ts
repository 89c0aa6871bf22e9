import type { JsonSchema, Skill } from '../skill/index.js'

/** What discovery indexes of one skill: each field is searched with its own weight. */
export interface SkillDocument {
  id: string
  key: string
  title: string
  description: string
  prompt: string
  tags: string
  category: string
  source: string
  args: string
}

export const DOCUMENT_FIELDS = ['key', 'title', 'description', 'prompt', 'tags', 'category', 'source', 'args'] as const

/** Names and descriptions of arguments, nested ones included, bounded so a huge schema can't swamp the index. */
export function argumentText(schema: JsonSchema, limit = 2_000): string {
  const parts: string[] = []
  let size = 0
  const visit = (node: unknown, depth: number) => {
    if (size > limit || depth > 6 || typeof node !== 'object' || node === null) return
    const n = node as Record<string, unknown>
    if (typeof n.description === 'string' && depth > 0) push(n.description)
    const properties = n.properties
    if (properties && typeof properties === 'object') {
      for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
        push(name)
        visit(child, depth + 1)
      }
    }
    for (const key of ['items', 'additionalProperties']) if (n[key] && typeof n[key] === 'object') visit(n[key], depth + 1)
    for (const key of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(n[key])) for (const child of n[key] as unknown[]) visit(child, depth + 1)
  }
  const push = (text: string) => {
    parts.push(text)
    size += text.length + 1
  }
  visit(schema, 0)
  return parts.join(' ').slice(0, limit)
}

/** A key's words as well as the key: `detect_orphans` is found by "detect" and "orphans". */
export function keyText(key: string): string {
  const words = key.split(/[_\-.]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean)
  return words.length > 1 ? `${key} ${words.join(' ')}` : key
}

const argsCache = new WeakMap<Skill, string>()

export interface DocumentOverrides {
  title: string
  description: string
  tags: string[]
  systemPrompt: string | null
}

export function skillDocument(skill: Skill, effective: DocumentOverrides): SkillDocument {
  let args = argsCache.get(skill)
  if (args === undefined) argsCache.set(skill, (args = argumentText(skill.input.jsonSchema)))
  return {
    id: skill.key,
    key: keyText(skill.key),
    title: effective.title,
    description: effective.description,
    prompt: effective.systemPrompt ?? '',
    tags: effective.tags.join(' '),
    category: skill.category,
    source: skill.source,
    args,
  }
}
