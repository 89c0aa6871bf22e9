import { CliError } from './cli-error.js'
import { ROLES, isRole } from '../../abilities/index.js'

/** A role argument: viewer, operator, admin, or none (null). */
export function parseRole(text: string): string | null {
  if (text === 'none') return null
  if (!isRole(text)) throw new CliError(`unknown role "${text}": use ${ROLES.join(', ')} or none`)
  return text
}
