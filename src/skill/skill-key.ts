import { DefinitionError } from './definition-error.js'

const KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/
export const MAX_KEY_LENGTH = 64
/** lower_snake in words, for error messages. */
export const LOWER_SNAKE_RULE = 'lowercase letters, digits and single underscores, starting with a letter'
/** The key rule in words, for error messages. */
export const KEY_RULE = `${LOWER_SNAKE_RULE}, at most ${MAX_KEY_LENGTH} characters`

export function isValidKey(key: unknown): key is string {
  return typeof key === 'string' && key.length <= MAX_KEY_LENGTH && KEY.test(key)
}

export function assertValidKey(key: unknown, where: string): asserts key is string {
  if (!isValidKey(key)) {
    throw new DefinitionError(`invalid skill key ${JSON.stringify(key)} (${where}): keys are lower_snake (${KEY_RULE})`)
  }
}

/** The URL segment for a key: keys are already URL-safe, slugs use hyphens for readability. */
export function skillSlug(key: string): string {
  return key.replaceAll('_', '-')
}

/** The LLM tool name: the key itself, which satisfies every provider's tool-name pattern. */
export function toolName(key: string): string {
  return key
}
