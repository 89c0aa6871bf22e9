import type { ListingPosition } from '../../inventory/index.js'

/**
 * The opaque cursor of the skills listing: where the page before ended (its last key, and whether
 * that was an instruction skill, which follows an executable skill of the same name), base64url,
 * so clients pass it back rather than build it, and the order can change without a break.
 */
export const skillCursor = {
  encode: (at: ListingPosition): string => Buffer.from(`${at.instruction ? 'i' : 'e'}:${at.key}`, 'utf8').toString('base64url'),
  /** The position, or null for text this API never gave out. */
  decode(cursor: string): ListingPosition | null {
    const text = Buffer.from(cursor, 'base64url').toString('utf8')
    const match = /^([ie]):(.+)$/s.exec(text)
    if (!match) return null
    const at = { key: match[2]!, instruction: match[1] === 'i' }
    return skillCursor.encode(at) === cursor ? at : null
  },
}
