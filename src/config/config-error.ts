import { SkillplaneError } from '../errors/index.js'

/** The config file can't be found, loaded or doesn't have the expected shape. */
export class ConfigError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override name = 'ConfigError'
}
