/** The config file can't be found, loaded or doesn't have the expected shape. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}
