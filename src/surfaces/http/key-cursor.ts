/**
 * The opaque cursor of a listing ordered by key (skills, agents): the last key of the page before,
 * base64url, so clients pass it back rather than build it, and the order can change without a break.
 */
export const keyCursor = {
  encode: (key: string): string => Buffer.from(key, 'utf8').toString('base64url'),
  /** The key, or null for text this API never gave out. */
  decode(cursor: string): string | null {
    const key = Buffer.from(cursor, 'base64url').toString('utf8')
    return key.length > 0 && keyCursor.encode(key) === cursor ? key : null
  },
}
