import { z } from 'zod'
import { unknownField } from '../../text/index.js'

/**
 * One line naming each invalid field of a request body or query; with the schema, an unknown
 * top-level field also names the one probably meant.
 */
export function describeZod(error: z.ZodError, schema?: z.ZodType): string {
  const known = schema instanceof z.ZodObject ? Object.keys(schema.shape) : []
  return error.issues
    .map((i) => {
      if (i.code === 'unrecognized_keys') return i.keys.map((key) => unknownField(key, i.path.length ? [] : known)).join('; ')
      return `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`
    })
    .join('; ')
}
