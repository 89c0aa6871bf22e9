import type { RunStep } from '../api/types'
import { Elapsed, elapsed } from '../components'
import { stepLabel } from './step-label'

const at = (iso: string | null | undefined): number | null => (iso ? Date.parse(iso) : null)
// A step in one of these states has not ended: its bar reaches to now.
const OPEN = new Set(['running', 'called', 'awaiting_approval', 'needs_auth', 'awaiting_input'])
// A bar this thin is still visible, and still clickable.
const MIN_WIDTH = 0.5

/**
 * The steps on the run's time axis: each a bar from its start for its duration, coloured by kind and status; a step
 * still running (or waiting for a person) reaches to now. Each bar leads to its step's card below.
 */
export function RunTimeline({ startedAt, endedAt, steps, now }: { startedAt: string; endedAt: string | null; steps: RunStep[]; now: number }) {
  const start = Date.parse(startedAt)
  const open = (step: RunStep) => step.startedAt !== null && step.finishedAt === null && OPEN.has(step.status ?? '')
  const ends = steps.map((step) => at(step.finishedAt) ?? (open(step) ? now : at(step.startedAt)) ?? start)
  const end = Math.max(at(endedAt) ?? now, ...ends, start + 1)
  const span = end - start
  const percent = (t: number) => Math.min(100, Math.max(0, ((t - start) / span) * 100))
  return (
    <figure className="step-timeline" aria-label="Step timeline">
      <ol>
        {steps.map((step, k) => {
          const from = at(step.startedAt)
          const left = from === null ? 0 : percent(from)
          const width = from === null ? 0 : Math.max(MIN_WIDTH, percent(ends[k]!) - left)
          const status = step.status ?? (step.kind === 'text' ? 'completed' : 'called')
          return (
            <li key={step.index} data-step={step.index} data-kind={step.kind} data-status={status}>
              <a href={`#step-${step.index}`} className="label" title={stepLabel(step)}>
                {step.index + 1} · {stepLabel(step)}
              </a>
              <span className="track">
                {from !== null && (
                  <span
                    className={`bar bar-${step.kind} bar-${status}${open(step) ? ' open' : ''}`}
                    style={{ left: `${left}%`, width: `${width}%` }}
                    title={`starts at +${elapsed(from - start)}, ${step.durationMs == null ? 'still going' : `takes ${elapsed(step.durationMs)}`}`}
                  />
                )}
              </span>
              <span className="took">{from === null ? <span className="muted">not timed</span> : <Elapsed ms={step.durationMs} />}</span>
            </li>
          )
        })}
      </ol>
      <figcaption className="axis muted">
        <span>0</span>
        <span>{elapsed(span)}</span>
      </figcaption>
    </figure>
  )
}
