import type { CatalogTool, LabelledQuery } from './discovery-data.js'

/** Query filler and function words only: a small list, so the reference stays plain BM25. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an the and or of to in on for with is are be i you me my it this that can what how do please'.split(' '),
)

/** Lower-cased alphanumeric runs, camelCase split first (tool names like `FinanceTool`), stop words dropped. */
export function tokenize(text: string): string[] {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .match(/[a-z0-9]+/g)
  return (words ?? []).filter((word) => !STOP_WORDS.has(word))
}

/**
 * What the reference indexes for a tool: the words skillplane indexes for it (its name, its
 * description, APIBench's domain), except LiveMCPBench's category and server, which the figures
 * the data README publishes were measured without.
 */
export function referenceText(tool: CatalogTool): string {
  return [tool.name ?? tool.label, tool.server === undefined ? tool.category : undefined, tool.description].filter((part) => part !== undefined).join(' ')
}

/** The doc-expansion reference's text: the tool's own, then every history query labelled with it. */
export function expandedTexts(tools: readonly CatalogTool[], history: readonly LabelledQuery[]): string[] {
  const learned = new Map<string, string[]>()
  for (const { query, relevant } of history) for (const label of relevant) learned.set(label, [...(learned.get(label) ?? []), query])
  return tools.map((tool) => [referenceText(tool), ...(learned.get(tool.label) ?? [])].join(' '))
}

/**
 * Plain Okapi BM25 (k1 = 1.5, b = 0.75, Lucene's non-negative idf, each distinct query term
 * counted once), the like-for-like baseline the discovery benchmark sets skillplane against.
 */
export class ReferenceBm25 {
  readonly #lengths: number[]
  readonly #averageLength: number
  readonly #postings = new Map<string, Array<[document: number, frequency: number]>>()

  constructor(
    documents: readonly string[],
    readonly k1 = 1.5,
    readonly b = 0.75,
  ) {
    if (documents.length === 0) throw new Error('ReferenceBm25: no documents to index')
    const tokenized = documents.map(tokenize)
    this.#lengths = tokenized.map((tokens) => tokens.length)
    this.#averageLength = this.#lengths.reduce((a, n) => a + n, 0) / documents.length
    tokenized.forEach((tokens, document) => {
      const frequencies = new Map<string, number>()
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1)
      for (const [token, frequency] of frequencies) {
        let postings = this.#postings.get(token)
        if (!postings) this.#postings.set(token, (postings = []))
        postings.push([document, frequency])
      }
    })
  }

  /** Every document's index, best first; equal scores keep catalog order. */
  rank(query: string): number[] {
    const n = this.#lengths.length
    const scores = new Float64Array(n)
    for (const term of new Set(tokenize(query))) {
      const postings = this.#postings.get(term)
      if (!postings) continue
      const idf = Math.log(1 + (n - postings.length + 0.5) / (postings.length + 0.5))
      for (const [document, frequency] of postings) {
        const norm = this.k1 * (1 - this.b + (this.b * this.#lengths[document]!) / this.#averageLength)
        scores[document]! += (idf * frequency * (this.k1 + 1)) / (frequency + norm)
      }
    }
    return Array.from({ length: n }, (_, i) => i).sort((x, y) => scores[y]! - scores[x]! || x - y)
  }
}
