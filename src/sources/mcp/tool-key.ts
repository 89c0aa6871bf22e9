import { createHash } from 'node:crypto'
import { MAX_KEY_LENGTH } from '../../skill/skill-key.js'

/**
 * The skill key of an MCP tool: `<server>_<tool>` in lower_snake (camelCase split, other characters
 * folded to `_`). A key that would be too long keeps its start and gains a hash of the tool name,
 * so it stays stable across restarts and distinct from its neighbours.
 */
export function toolKey(server: string, tool: string): string {
  const snake = tool
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
  const key = snake ? `${server}_${snake}` : server
  if (key.length <= MAX_KEY_LENGTH) return key
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8)
  return `${key.slice(0, MAX_KEY_LENGTH - hash.length - 1).replace(/_+$/, '')}_${hash}`
}
