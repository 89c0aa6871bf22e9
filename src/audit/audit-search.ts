import { SEARCH_COLUMNS, type AuditRepository, type AuditRow, type AuditSearch, type SearchColumn } from '../store/index.js'

// Distinct values are read again after this long, so calls from new callers or skills are found soon.
const VALUES_TTL_MS = 30_000

/** The words of free text: lowercase runs of letters and digits (what both databases' indexes split on). */
export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
}

/** Whether every word of the query starts a word of the text (the search's rule everywhere). */
export function matchesWords(text: string, words: string[]): boolean {
  const own = searchWords(text)
  return words.every((word) => own.some((w) => w.startsWith(word)))
}

/** A label a value is also known by (an agent's name and aliases for its id). */
export interface SearchLabel {
  column: SearchColumn
  value: string
  label: string
}

/**
 * Resolves free text for the store: skills, callers and agents are few distinct values, matched
 * here against the values the audit holds (read from their indexes, cached a while) and their
 * labels; error messages are left to the database's word index.
 */
export class AuditSearcher {
  #values: { at: number; values: Array<[SearchColumn, string]>; keys: Set<string> } | null = null
  #reading: Promise<Array<[SearchColumn, string]>> | null = null

  constructor(
    private readonly repo: AuditRepository,
    private readonly labels: () => SearchLabel[],
  ) {}

  async resolve(q: string): Promise<AuditSearch> {
    const words = searchWords(q)
    const matched = new Set<string>()
    const values: Array<[SearchColumn, string]> = []
    const add = (column: SearchColumn, value: string) => {
      const key = `${column}\u0000${value}`
      if (matched.has(key)) return
      matched.add(key)
      values.push([column, value])
    }
    for (const [column, value] of await this.#known()) if (matchesWords(value, words)) add(column, value)
    for (const { column, value, label } of this.labels()) if (matchesWords(label, words)) add(column, value)
    return { values, words }
  }

  /** A row this process wrote: its values are searchable now, not only after the cache's next read. */
  saw(row: Pick<AuditRow, SearchColumn>): void {
    const cached = this.#values
    if (!cached) return
    for (const column of SEARCH_COLUMNS) {
      const value = row[column]
      if (value === null || cached.keys.has(`${column}\u0000${value}`)) continue
      cached.keys.add(`${column}\u0000${value}`)
      cached.values.push([column, value])
    }
  }

  async #known(): Promise<Array<[SearchColumn, string]>> {
    const cached = this.#values
    if (cached && Date.now() - cached.at < VALUES_TTL_MS) return cached.values
    const reading = (this.#reading ??= Promise.all(
      SEARCH_COLUMNS.map(async (column) => (await this.repo.distinctValues(column)).map((v): [SearchColumn, string] => [column, v])),
    )
      .then((lists) => {
        const values = lists.flat()
        this.#values = { at: Date.now(), values, keys: new Set(values.map(([column, value]) => `${column}\u0000${value}`)) }
        return this.#values.values
      })
      .finally(() => (this.#reading = null)))
    if (!cached) return reading
    // Stale values answer now (they lack only calls from other managers since): the fresh ones come for the next search.
    reading.catch(() => {})
    return cached.values
  }
}
