import { CliError } from './cli-error.js'
import { ROLES, isRole } from '../../access/roles.js'

/** A role argument: viewer, operator, admin, or none (null). */
export function parseRole(text: string): string | null {
  if (text === 'none') return null
  if (!isRole(text)) throw new CliError(`unknown role "${text}": use ${ROLES.join(', ')} or none`)
  return text
}
