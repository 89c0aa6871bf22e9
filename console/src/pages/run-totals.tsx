import type { ReactNode } from 'react'
import type { RunTotals } from '../api/types'
import { Cost, Elapsed, Tokens } from '../components'

/** The rows of a run's totals, in the order they are shown: the run page's header and the compare page share them. */
export const TOTALS: Array<{ key: keyof RunTotals; label: string; show: (totals: RunTotals) => ReactNode }> = [
  { key: 'durationMs', label: 'Total time', show: (t) => <Elapsed ms={t.durationMs} /> },
  { key: 'modelMs', label: 'Model time', show: (t) => <Elapsed ms={t.modelMs} /> },
  { key: 'toolMs', label: 'Tool time', show: (t) => <Elapsed ms={t.toolMs} /> },
  { key: 'approvalWaitMs', label: 'Approval wait', show: (t) => <Elapsed ms={t.approvalWaitMs} /> },
  { key: 'modelSteps', label: 'Model calls', show: (t) => <Tokens count={t.modelSteps} /> },
  { key: 'inputTokens', label: 'Input tokens', show: (t) => <Tokens count={t.inputTokens} /> },
  { key: 'outputTokens', label: 'Output tokens', show: (t) => <Tokens count={t.outputTokens} /> },
  { key: 'cachedInputTokens', label: 'Cached input tokens', show: (t) => <Tokens count={t.cachedInputTokens} /> },
  { key: 'costUsd', label: 'Cost', show: (t) => <Cost usd={t.costUsd} /> },
]

/** A run's totals: its time, the model's and the tools' share, the wait for people, tokens and cost. */
export function RunTotalsView({ totals }: { totals: RunTotals }) {
  return (
    <dl className="totals" aria-label="Run totals">
      {TOTALS.map(({ key, label, show }) => (
        <div key={key} data-total={key}>
          <dt>{label}</dt>
          <dd>{show(totals)}</dd>
        </div>
      ))}
    </dl>
  )
}
