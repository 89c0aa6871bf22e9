/** A skill definition that can't be registered: bad key, clash, unconvertible schema. */
export class DefinitionError extends Error {
  override name = 'DefinitionError'
}
