import type { z } from 'zod'
import { unknownFields } from '../../text/index.js'

/** Check a request's body, query or form fields against its schema; describeZod tells what is wrong. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  // Unknown fields are named with the one probably meant, read from the object that refused them.
  return schema.safeParse(value, { error: unknownFields })
}
