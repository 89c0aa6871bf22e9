// Reciprocal rank fusion's usual constant: it keeps one list's top from drowning the other's.
const K = 60

interface Ranked {
  key: string
  score: number
  why: string[]
}

/** Reciprocal rank fusion of the lexical ranking and the semantic one (keys best first, with similarity). */
export function fuseRanks<T extends Ranked>(lexical: T[], semantic: Array<{ key: string; similarity: number }>): T[] {
  const fused = new Map<string, T>()
  lexical.forEach((entry, rank) => fused.set(entry.key, { ...entry, score: 1 / (K + rank + 1) }))
  semantic.forEach(({ key, similarity }, rank) => {
    const entry = fused.get(key) ?? ({ key, score: 0, why: [] } as unknown as T)
    entry.score += 1 / (K + rank + 1)
    entry.why = [...entry.why, `similar in meaning (${similarity.toFixed(2)})`]
    fused.set(key, entry)
  })
  return [...fused.values()].sort((a, b) => b.score - a.score)
}
