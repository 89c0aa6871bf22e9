import type { z } from 'zod'
import { CliError } from './cli-error.js'

/** `--label key=value` flags as an object, checked against the labels schema; errors name the flag. */
export function parseLabels(flags: string[], schema: z.ZodType<Record<string, string>>): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const flag of flags) {
    const eq = flag.indexOf('=')
    if (eq < 1) throw new CliError(`--label takes key=value, got "${flag}"`)
    labels[flag.slice(0, eq)] = flag.slice(eq + 1)
  }
  const parsed = schema.safeParse(labels)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new CliError(`--label ${issue.path.join('.')}: ${issue.message}`)
  }
  return parsed.data
}
