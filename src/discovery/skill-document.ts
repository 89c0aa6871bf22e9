import type { JsonSchema, Skill } from '../skill/index.js'

/** What discovery indexes of one skill's own text: each field is searched with its own weight (its usage is learned apart). */
export interface BaseDocument {
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

export const TEXT_FIELDS = ['key', 'title', 'description', 'tags', 'category', 'args', 'prompt', 'source'] as const
export type TextField = (typeof TEXT_FIELDS)[number]

// Enough for any real skill's arguments; a huge schema can't swamp a document.
const ARGUMENT_CHARS = 2_000

/** Names and descriptions of arguments, nested ones included, bounded so a huge schema can't swamp the index. */
export function argumentText(schema: JsonSchema): string {
  const parts: string[] = []
  let size = 0
  const visit = (node: unknown, depth: number) => {
    if (size > ARGUMENT_CHARS || depth > 6 || typeof node !== 'object' || node === null) return
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
  return parts.join(' ').slice(0, ARGUMENT_CHARS)
}

const argsCache = new WeakMap<Skill, string>()

export interface DocumentOverrides {
  title: string
  description: string
  tags: string[]
  systemPrompt: string | null
}

export function skillDocument(skill: Skill, effective: DocumentOverrides): BaseDocument {
  let args = argsCache.get(skill)
  if (args === undefined) argsCache.set(skill, (args = argumentText(skill.input.jsonSchema)))
  return {
    id: skill.key,
    // The tokenizer splits it at `_`, `-` and camelCase humps: detect_orphans is found by "orphans".
    key: skill.key,
    title: effective.title,
    description: effective.description,
    prompt: effective.systemPrompt ?? '',
    tags: effective.tags.join(' '),
    category: skill.category,
    source: skill.source,
    args,
  }
}
