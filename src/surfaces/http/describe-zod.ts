import type { z } from 'zod'

/**
 * One line naming each invalid field of a request body or query. Parsed with parseInput, an
 * unknown field, at any depth, also names the one probably meant.
 */
export function describeZod(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      if (i.code === 'unrecognized_keys') return i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message
      return `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`
    })
    .join('; ')
}
