import MiniSearch, { type SearchResult } from 'minisearch'
import { DOCUMENT_FIELDS, type SkillDocument } from './skill-document.js'
import { processTerm, tokenize } from './tokenize.js'

/** Field weights: a word in the key or title says more about a skill than one in an argument. */
const FIELD_BOOST: Record<(typeof DOCUMENT_FIELDS)[number], number> = {
  key: 3,
  title: 2,
  description: 1,
  prompt: 0.3,
  tags: 1.5,
  category: 0.7,
  source: 0.5,
  args: 0.6,
}

/** A usage example: a request that led to a call of the skill. */
export interface UsageExample {
  id: string
  skill: string
  query: string
  /** ms since the epoch. */
  at: number
}

export interface LexicalHit {
  key: string
  score: number
  /** field → the query words it matched. */
  fields: Map<string, string[]>
}

export interface UsageHit {
  key: string
  score: number
  /** How many stored requests matched. */
  examples: number
}

const options = { tokenize, processTerm }

/**
 * The search structures behind discovery: one MiniSearch index of skill documents and one of
 * usage examples (each a document of its own, so every stored request counts), both updated in
 * place as skills and examples come and go.
 */
export class SkillIndex {
  readonly #skills = new MiniSearch<SkillDocument>({ fields: [...DOCUMENT_FIELDS], ...options })
  readonly #signatures = new Map<string, string>()
  readonly #examples = new MiniSearch<{ id: string; query: string }>({ fields: ['query'], ...options })
  readonly #exampleSkill = new Map<string, { skill: string; at: number }>()

  /** Make the index hold exactly these documents, touching only the ones that changed. */
  sync(documents: Iterable<SkillDocument>): { added: number; changed: number; removed: number } {
    const seen = new Set<string>()
    let added = 0
    let changed = 0
    for (const doc of documents) {
      seen.add(doc.id)
      const signature = JSON.stringify(doc)
      const before = this.#signatures.get(doc.id)
      if (before === signature) continue
      if (before === undefined) {
        this.#skills.add(doc)
        added++
      } else {
        this.#skills.replace(doc)
        changed++
      }
      this.#signatures.set(doc.id, signature)
    }
    let removed = 0
    for (const id of this.#signatures.keys()) {
      if (seen.has(id)) continue
      this.#skills.discard(id)
      this.#signatures.delete(id)
      removed++
    }
    return { added, changed, removed }
  }

  get size(): number {
    return this.#signatures.size
  }

  has(key: string): boolean {
    return this.#signatures.has(key)
  }

  lexical(query: string): LexicalHit[] {
    return this.#skills.search(query, { boost: FIELD_BOOST, combineWith: 'OR', prefix: prefixLongWords, fuzzy: fuzzyLongWords }).map(toLexicalHit)
  }

  addExample(example: UsageExample): void {
    if (this.#exampleSkill.has(example.id)) return
    this.#examples.add({ id: example.id, query: example.query })
    this.#exampleSkill.set(example.id, { skill: example.skill, at: example.at })
  }

  get examples(): number {
    return this.#exampleSkill.size
  }

  /**
   * Skills by the stored requests like this one: each matching request adds its score, weighted by
   * its age (halved every `halfLifeMs`), to its skill.
   */
  usage(query: string, now: number, halfLifeMs: number): UsageHit[] {
    const bySkill = new Map<string, UsageHit>()
    for (const hit of this.#examples.search(query, { combineWith: 'OR' })) {
      const example = this.#exampleSkill.get(hit.id as string)!
      const weight = Math.pow(0.5, Math.max(0, now - example.at) / halfLifeMs)
      const entry = bySkill.get(example.skill) ?? { key: example.skill, score: 0, examples: 0 }
      entry.score += hit.score * weight
      entry.examples++
      bySkill.set(example.skill, entry)
    }
    return [...bySkill.values()].sort((a, b) => b.score - a.score)
  }
}

// Typing a word's start finds it ("restar" → restart); longer words forgive one typo.
const prefixLongWords = (term: string) => term.length >= 4
const fuzzyLongWords = (term: string) => (term.length >= 6 ? 1 : 0)

function toLexicalHit(result: SearchResult): LexicalHit {
  const fields = new Map<string, string[]>()
  for (const [term, matched] of Object.entries(result.match)) {
    for (const field of matched) fields.set(field, [...(fields.get(field) ?? []), term])
  }
  return { key: result.id as string, score: result.score, fields }
}
