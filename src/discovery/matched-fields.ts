import type { MatchField } from './lexical-index.js'

/** Which words matched in which of the skill's own fields, and how many in its stored requests, for `why`. */
export function matchedFields(match: Record<string, MatchField[]>, stored: number): string[] {
  const fields = new Map<string, string[]>()
  const usage: string[] = []
  for (const [term, matched] of Object.entries(match)) {
    for (const field of matched) {
      if (field === 'usage') usage.push(term)
      else fields.set(field, [...(fields.get(field) ?? []), term])
    }
  }
  const why: string[] = []
  if (fields.size) why.push(`matched ${[...fields].map(([field, terms]) => `${field}: ${terms.join(', ')}`).join('; ')}`)
  if (usage.length) why.push(`asked for like this before (${usage.join(', ')}; ${stored} stored request${stored === 1 ? '' : 's'})`)
  return why
}
