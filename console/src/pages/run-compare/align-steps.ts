import canonicalize from 'canonicalize'

/** The parts of a run step the comparison reads (a RunStep has them all). */
export interface ComparedStep {
  kind: string
  tool?: string
  input?: unknown
  output?: unknown
  error?: string
  status?: string
  text?: string
  model?: { provider: string; modelId: string }
}

/** Why two aligned steps differ; `only-a` / `only-b` when a step has no counterpart in the other run. */
export type StepDifference = 'only-a' | 'only-b' | 'kind' | 'tool' | 'model' | 'input' | 'output' | 'status' | 'text'

export interface AlignedSteps<S> {
  a: S | null
  b: S | null
  differences: StepDifference[]
}

export interface Alignment<S> {
  rows: AlignedSteps<S>[]
  /** The first row whose steps differ, or null when the runs took the same steps with the same results. */
  firstDivergence: number | null
}

// Steps match on what the agent did (a model call, an answer, a call of which tool), not on what it got back.
const signature = (step: ComparedStep): string => (step.kind === 'tool' ? `tool:${step.tool ?? ''}` : step.kind)

// JSON compared by value, whatever order the keys came in.
const same = (x: unknown, y: unknown): boolean => x === y || (x !== undefined && y !== undefined && canonicalize(x) === canonicalize(y))

function differences(a: ComparedStep, b: ComparedStep): StepDifference[] {
  if (a.kind !== b.kind) return ['kind']
  const found: StepDifference[] = []
  if (a.kind === 'tool' && a.tool !== b.tool) found.push('tool')
  if (a.kind === 'model' && (a.model?.provider !== b.model?.provider || a.model?.modelId !== b.model?.modelId)) found.push('model')
  if (!same(a.input, b.input)) found.push('input')
  if (!same(a.output, b.output) || a.error !== b.error) found.push('output')
  // A model step's own status says how its call went, not what the agent did: finished steps compare equal.
  if (a.kind !== 'model' && a.status !== b.status) found.push('status')
  if ((a.text ?? '') !== (b.text ?? '')) found.push('text')
  return found
}

/**
 * Two runs' steps side by side: the longest common sequence of step signatures (kind, and the tool's name) aligns them
 * in order; between two aligned steps, the leftover steps of both runs pair up position by position, and what remains
 * stands alone. Each row says how its steps differ.
 */
export function alignSteps<S extends ComparedStep>(a: readonly S[], b: readonly S[]): Alignment<S> {
  const sa = a.map(signature)
  const sb = b.map(signature)
  // lcs[i][j]: the length of the longest common subsequence of sa[i..] and sb[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = sa[i] === sb[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!)

  const rows: AlignedSteps<S>[] = []
  let gapA: S[] = []
  let gapB: S[] = []
  const pair = (x: S | null, y: S | null) => rows.push({ a: x, b: y, differences: x && y ? differences(x, y) : x ? ['only-a'] : ['only-b'] })
  const closeGap = () => {
    for (let k = 0; k < Math.max(gapA.length, gapB.length); k++) pair(gapA[k] ?? null, gapB[k] ?? null)
    gapA = []
    gapB = []
  }
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && sa[i] === sb[j]) {
      closeGap()
      pair(a[i++]!, b[j++]!)
    } else if (j >= b.length || (i < a.length && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) gapA.push(a[i++]!)
    else gapB.push(b[j++]!)
  }
  closeGap()
  const first = rows.findIndex((row) => row.differences.length > 0)
  return { rows, firstDivergence: first === -1 ? null : first }
}
