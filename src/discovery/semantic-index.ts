import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import type { DiscoveryRepository } from '../store/index.js'
import type { Embedder } from './embedder.js'
import type { BaseDocument } from './skill-document.js'

const BATCH = 64
const QUERY_CACHE = 500
const TOP = 50
// A hung embedding API costs a query the semantic leg, never its answer.
const QUERY_TIMEOUT_MS = 5_000
const BATCH_TIMEOUT_MS = 60_000

/**
 * Skill embeddings for the semantic leg: each skill's text embedded once and stored, again only
 * when its text changes; queries embedded per call (cached). A failing embedder costs the leg,
 * never the search: discovery goes on with words and usage.
 */
export class SemanticIndex {
  readonly #vectors = new Map<string, { hash: string; vector: number[] }>()
  readonly #queries = new Map<string, number[]>()
  #wanted = new Map<string, { hash: string; text: string }>()
  #loaded: Promise<void> | undefined
  #embedding: Promise<void> = Promise.resolve()

  constructor(
    private readonly embedder: Embedder,
    private readonly repo: DiscoveryRepository,
    private readonly logger: Logger,
  ) {}

  /** Embed what is new or changed, in the background; drop what is gone. */
  sync(documents: Iterable<BaseDocument>): void {
    const wanted = new Map<string, { hash: string; text: string }>()
    for (const doc of documents) {
      const text = `${doc.key}: ${doc.title}. ${doc.description} ${doc.tags}`.slice(0, 4_000)
      wanted.set(doc.id, { hash: createHash('sha256').update(text).digest('hex').slice(0, 32), text })
    }
    this.#wanted = wanted
    for (const key of this.#vectors.keys()) if (!wanted.has(key)) this.#vectors.delete(key)
    this.#embedding = this.#embedding.then(() => this.#embedMissing())
  }

  /** Wait until every current skill has its vector (tests, benchmarks). */
  async ready(): Promise<void> {
    await this.#embedding
  }

  async rank(query: string): Promise<Array<{ key: string; similarity: number }>> {
    let vector = this.#queries.get(query)
    if (!vector) {
      try {
        ;[vector] = await this.embedder.embed([query], AbortSignal.timeout(QUERY_TIMEOUT_MS))
      } catch (error) {
        this.logger.warn({ err: error, embedder: this.embedder.id }, 'discovery could not embed a query; ranking by words and usage alone')
        return []
      }
      this.#queries.set(query, vector!)
      if (this.#queries.size > QUERY_CACHE) this.#queries.delete(this.#queries.keys().next().value!)
    }
    const scored: Array<{ key: string; similarity: number }> = []
    for (const [key, { vector: v }] of this.#vectors) scored.push({ key, similarity: cosine(vector!, v) })
    return scored.sort((a, b) => b.similarity - a.similarity).slice(0, TOP)
  }

  async #embedMissing(): Promise<void> {
    this.#loaded ??= this.repo.embeddings(this.embedder.id).then((rows) => {
      for (const row of rows) this.#vectors.set(row.skill_key, { hash: row.text_hash, vector: JSON.parse(row.vector) as number[] })
    })
    try {
      await this.#loaded
      const missing = [...this.#wanted].filter(([key, { hash }]) => this.#vectors.get(key)?.hash !== hash)
      for (let i = 0; i < missing.length; i += BATCH) {
        const batch = missing.slice(i, i + BATCH)
        const vectors = await this.embedder.embed(
          batch.map(([, { text }]) => text),
          AbortSignal.timeout(BATCH_TIMEOUT_MS),
        )
        const rows = batch.map(([key, { hash }], j) => ({ skill_key: key, model: this.embedder.id, text_hash: hash, vector: JSON.stringify(vectors[j]) }))
        await this.repo.putEmbeddings(rows)
        batch.forEach(([key, { hash }], j) => this.#wanted.get(key)?.hash === hash && this.#vectors.set(key, { hash, vector: vectors[j]! }))
      }
    } catch (error) {
      this.#loaded = undefined
      this.logger.warn({ err: error, embedder: this.embedder.id }, 'discovery could not embed skills; the semantic leg waits for the next change')
    }
  }
}

function cosine(a: number[], b: number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length && i < b.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0
}
