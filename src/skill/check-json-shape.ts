/**
 * How deep skill inputs and results may nest. Deeper values can't be redacted, stored or
 * serialised reliably (JSON.stringify overflows the stack long before V8's parser gives up), so the
 * pipeline refuses them instead of letting the audit and the client disagree.
 */
export const MAX_JSON_DEPTH = 64

/** Keys that assignment-based copies turn into a prototype instead of a property. */
const HIDDEN_KEY = '__proto__'

/**
 * What is wrong with a value's shape, or null: nesting deeper than MAX_JSON_DEPTH, or (with
 * `forbidProtoKey`) an own `__proto__` key, which many copies drop while the skill would receive it.
 * Walks iteratively, so a hostile depth can't overflow the stack here either.
 */
export function checkJsonShape(value: unknown, options: { forbidProtoKey?: boolean } = {}): string | null {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 0, path: '' }]
  while (stack.length > 0) {
    const item = stack.pop()!
    if (item.value === null || typeof item.value !== 'object') continue
    if (item.depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels (at ${item.path || '/'})`
    if (Array.isArray(item.value)) {
      for (let i = item.value.length - 1; i >= 0; i--) stack.push({ value: item.value[i], depth: item.depth + 1, path: `${item.path}/${i}` })
      continue
    }
    for (const key of Object.keys(item.value)) {
      const path = `${item.path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (options.forbidProtoKey && key === HIDDEN_KEY) return `has a "${HIDDEN_KEY}" key at ${path}, which is not allowed`
      stack.push({ value: (item.value as Record<string, unknown>)[key], depth: item.depth + 1, path })
    }
  }
  return null
}
