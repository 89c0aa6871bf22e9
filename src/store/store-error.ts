import { SkillplaneError } from '../errors/index.js'

/** The database can't be opened, reached or migrated. */
export class StoreError extends SkillplaneError {
  override readonly code = 'unavailable'
  override name = 'StoreError'
}
