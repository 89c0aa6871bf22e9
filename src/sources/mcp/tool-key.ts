import { createHash } from 'node:crypto'
import { MAX_KEY_LENGTH } from '../../skill/index.js'

/**
 * The skill key of an MCP tool: `<server>_<tool>` in lower_snake (camelCase split, other characters
 * folded to `_`). A key that would be too long, a name that folds to nothing, and (`hashed`) names
 * that fold to the same key as another tool's gain a hash of the tool name, so keys stay stable
 * across restarts and distinct from their neighbours whatever order the server lists them in.
 */
export function toolKey(server: string, tool: string, hashed = false): string {
  const snake = tool
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
  const key = snake ? `${server}_${snake}` : server
  if (key.length <= MAX_KEY_LENGTH && snake && !hashed) return key
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8)
  return `${key.slice(0, MAX_KEY_LENGTH - hash.length - 1).replace(/_+$/, '')}_${hash}`
}

/**
 * The keys of a server's tools (or prompts), in the order listed: a name listed twice keeps its
 * first entry and the rest are reported; names that fold to the same key all get hashed keys,
 * whatever order they come in.
 */
export function keysOf<T extends { name: string }>(
  server: string,
  items: readonly T[],
  what: string,
): { keyed: { key: string; item: T }[]; problems: string[] } {
  const folded = new Map<string, number>()
  for (const item of items) folded.set(toolKey(server, item.name), (folded.get(toolKey(server, item.name)) ?? 0) + 1)
  const seen = new Set<string>()
  const keyed: { key: string; item: T }[] = []
  const problems: string[] = []
  for (const item of items) {
    if (seen.has(item.name)) {
      problems.push(`${what} "${item.name}" is listed twice; the first is kept`)
      continue
    }
    seen.add(item.name)
    keyed.push({ key: toolKey(server, item.name, folded.get(toolKey(server, item.name))! > 1), item })
  }
  return { keyed, problems }
}
