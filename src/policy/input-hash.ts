import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'

/** SHA-256 of the RFC 8785 canonical JSON of (skill, input): equal arguments, equal hash. */
export function inputHash(skill: string, input: unknown): string {
  return createHash('sha256')
    .update(canonicalize({ skill, input }) ?? 'null')
    .digest('hex')
}
