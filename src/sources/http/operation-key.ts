import { createHash } from 'node:crypto'
import { MAX_KEY_LENGTH } from '../../skill/index.js'

/**
 * `<prefix>_<name>` in lower_snake (camelCase split, other characters folded to `_`). A key too
 * long for a skill gains a hash of the name instead of its tail, so it stays stable and distinct.
 */
export function operationKey(prefix: string, name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
  const key = snake ? `${prefix}_${snake}` : prefix
  if (key.length <= MAX_KEY_LENGTH && snake) return key
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8)
  return `${key.slice(0, MAX_KEY_LENGTH - hash.length - 1).replace(/_+$/, '')}_${hash}`
}
