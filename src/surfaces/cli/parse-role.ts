import { CliError } from './cli-error.js'

/** A role argument: viewer, operator, admin, or none (null). */
export function parseRole(text: string): string | null {
  if (text === 'none') return null
  if (!['viewer', 'operator', 'admin'].includes(text)) throw new CliError(`unknown role "${text}": use viewer, operator, admin or none`)
  return text
}
