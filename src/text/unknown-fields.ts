import type { z } from 'zod'
import { unknownField } from './closest-match.js'

/**
 * A zod error map naming each unknown field with the one probably meant (`clas` → `class`). The
 * fields are read from the object that refused the keys, so a nested, extended or union-member
 * object suggests its own. Give it to a strict object's `error` or to a parse's.
 */
export function unknownFields(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined
  const known = Object.keys((issue.inst as z.ZodObject | undefined)?.shape ?? {})
  return issue.keys.map((key) => unknownField(key, known)).join('; ')
}
