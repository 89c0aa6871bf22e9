import type { z } from 'zod'

/** One line naming each invalid field of a request body or query. */
export function describeZod(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      if (i.code === 'unrecognized_keys') return `unknown field ${i.keys.map((k) => JSON.stringify(k)).join(', ')}`
      return `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`
    })
    .join('; ')
}
