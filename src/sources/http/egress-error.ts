/** A call refused or failed under a source's egress rules; the pipeline reports it as executor_error. */
export class EgressError extends Error {
  override name = 'EgressError'
}
