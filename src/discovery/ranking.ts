/**
 * How discovery ranks: a field-weighted Okapi BM25 (BM25F) over each skill's own text and the
 * requests that led to its calls. The defaults are chosen by `bench/discovery-quality.bench.ts`
 * on public tool-retrieval sets; `discovery.ranking` in the config overrides any of them.
 */
export interface RankingParameters {
  /** BM25 term-frequency saturation: higher lets repeated words count longer. */
  k1: number
  /** BM25 length normalisation, 0 (none) to 1 (full). */
  b: number
  /** Each field's weight; 0 leaves the field out of matching. */
  fields: RankingFields
  /** The weight of the requests that led to the skill's calls, at their newest (they halve every half-life). */
  usage: number
  /** The last word may be unfinished ("restar" → restart), as in a search box. */
  prefix: boolean
  /** Words of at least this many letters forgive one typo; 0 turns fuzzy matching off. */
  fuzzyFrom: number
  /** How much the skills that the most similar past requests led to gain (0–1 of the best match); 0 turns it off. */
  neighbours: number
  /** How much a learned or declared relation to a better match raises a skill that matched too; 0 turns relations off. */
  relations: number
}

export interface RankingFields {
  key: number
  title: number
  description: number
  tags: number
  category: number
  args: number
  prompt: number
  source: number
}

export type RankingOverrides = Partial<Omit<RankingParameters, 'fields'>> & { fields?: Partial<RankingFields> }

export const DEFAULT_RANKING: RankingParameters = {
  k1: 3,
  b: 0.75,
  fields: { key: 1, title: 2, description: 1, tags: 0.5, category: 1.5, args: 0.3, prompt: 0.3, source: 0 },
  usage: 0.5,
  prefix: true,
  fuzzyFrom: 6,
  neighbours: 1,
  relations: 0.1,
}

/** The defaults with these overrides applied. */
/** The defaults with these overrides applied; a value out of range is refused, naming it (the config's schema checks the same). */
export function rankingWith(overrides: RankingOverrides = {}, base: RankingParameters = DEFAULT_RANKING): RankingParameters {
  const ranking = { ...base, ...overrides, fields: { ...base.fields, ...overrides.fields } }
  const numbers: Array<[string, unknown, number]> = [
    ['k1', ranking.k1, 10],
    ['b', ranking.b, 1],
    ['usage', ranking.usage, 100],
    ['neighbours', ranking.neighbours, 10],
    ['relations', ranking.relations, 1],
    ['fuzzyFrom', ranking.fuzzyFrom, 100],
    ...Object.entries(ranking.fields).map(([field, value]): [string, unknown, number] => [`fields.${field}`, value, 100]),
  ]
  for (const [name, value, most] of numbers) {
    if (typeof value !== 'number' || !(value >= 0 && value <= most))
      throw new RangeError(`discovery ranking: ${name} must be a number from 0 to ${most}, not ${String(value)}`)
  }
  for (const field of Object.keys(ranking.fields)) if (!(field in base.fields)) throw new RangeError(`discovery ranking: no field "${field}"`)
  if (!Number.isInteger(ranking.fuzzyFrom)) throw new RangeError(`discovery ranking: fuzzyFrom must be a whole number, not ${ranking.fuzzyFrom}`)
  if (typeof ranking.prefix !== 'boolean') throw new RangeError(`discovery ranking: prefix must be true or false, not ${String(ranking.prefix)}`)
  return ranking
}
