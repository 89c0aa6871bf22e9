/** Retrieval figures over a query set, each a percentage (binary relevance). */
export interface RetrievalFigures {
  queries: number
  /** The first result is relevant. */
  acc1: number
  /** |relevant ∩ top k| / |relevant|. */
  recall5: number
  recall10: number
  /** DCG over the top k (1 / log2(rank + 1) per relevant result) divided by the ideal DCG. */
  ndcg5: number
  ndcg10: number
  /** 1 / rank of the first relevant result within the ranking given, 0 when none. */
  mrr: number
  /** Every relevant tool is in the top 5. */
  allIn5: number
}

export type FigureName = Exclude<keyof RetrievalFigures, 'queries'>

export const FIGURE_NAMES: Record<FigureName, string> = {
  acc1: 'Acc@1',
  recall5: 'Recall@5',
  recall10: 'Recall@10',
  ndcg5: 'nDCG@5',
  ndcg10: 'nDCG@10',
  mrr: 'MRR',
  allIn5: 'all-in-top-5',
}

function recall(ranked: string[], relevant: ReadonlySet<string>, k: number): number {
  return ranked.slice(0, k).filter((label) => relevant.has(label)).length / relevant.size
}

function ndcg(ranked: string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0
  ranked.slice(0, k).forEach((label, i) => {
    if (relevant.has(label)) dcg += 1 / Math.log2(i + 2)
  })
  let ideal = 0
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2)
  return dcg / ideal
}

/**
 * Scores rankings of labels, best first, against their relevant labels. A label ranked twice
 * (one name on several servers) counts at its first place only.
 */
export function scoreRankings(judged: Array<{ ranked: readonly string[]; relevant: readonly string[] }>): RetrievalFigures {
  if (judged.length === 0) throw new Error('scoreRankings: no queries to score')
  const sums: Record<FigureName, number> = { acc1: 0, recall5: 0, recall10: 0, ndcg5: 0, ndcg10: 0, mrr: 0, allIn5: 0 }
  for (const { ranked: withRepeats, relevant: labels } of judged) {
    if (labels.length === 0) throw new Error('scoreRankings: a query has no relevant label')
    const relevant = new Set(labels)
    const ranked = [...new Set(withRepeats)]
    const first = ranked.findIndex((label) => relevant.has(label))
    sums.acc1 += first === 0 ? 1 : 0
    sums.recall5 += recall(ranked, relevant, 5)
    sums.recall10 += recall(ranked, relevant, 10)
    sums.ndcg5 += ndcg(ranked, relevant, 5)
    sums.ndcg10 += ndcg(ranked, relevant, 10)
    sums.mrr += first < 0 ? 0 : 1 / (first + 1)
    sums.allIn5 += recall(ranked, relevant, 5) === 1 ? 1 : 0
  }
  const percent = (sum: number) => (100 * sum) / judged.length
  return {
    queries: judged.length,
    acc1: percent(sums.acc1),
    recall5: percent(sums.recall5),
    recall10: percent(sums.recall10),
    ndcg5: percent(sums.ndcg5),
    ndcg10: percent(sums.ndcg10),
    mrr: percent(sums.mrr),
    allIn5: percent(sums.allIn5),
  }
}
