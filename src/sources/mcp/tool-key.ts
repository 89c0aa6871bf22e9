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
