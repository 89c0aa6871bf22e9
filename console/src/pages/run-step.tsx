import { Link } from 'react-router'
import type { RunStep } from '../api/types'
import { JsonView, StatusChip } from '../components'
import { callPath } from '../paths'

/** One step of a run: what the model said, or one tool call with its arguments and outcome. */
export function RunStepCard({ step, readAudit }: { step: RunStep; readAudit: boolean }) {
  const n = step.index + 1
  if (step.kind === 'text') {
    return (
      <article className="step card" data-step={step.index} data-kind="text">
        <header>
          <h3>Step {n} · answer</h3>
        </header>
        <p className="said">{step.text || <span className="muted">(no text)</span>}</p>
      </article>
    )
  }
  const status = step.status ?? 'called'
  return (
    <article className="step card" data-step={step.index} data-kind="tool" data-status={status}>
      <header>
        <h3>
          Step {n} · tool call <code>{step.tool}</code>
        </h3>
        <StatusChip value={status} />
      </header>
      <div className="columns">
        <div>
          <h4>Arguments</h4>
          <JsonView value={step.input} label={`Arguments of step ${n}`} />
        </div>
        <div>
          <h4>Outcome</h4>
          {step.error ? (
            <p className="error">{step.error}</p>
          ) : step.output !== undefined ? (
            <JsonView value={step.output} label={`Outcome of step ${n}`} />
          ) : (
            <p className="muted">{status === 'awaiting_approval' ? 'Not run yet: it waits for a decision.' : '—'}</p>
          )}
        </div>
      </div>
      <p className="step-links">
        {step.callId &&
          (readAudit ? (
            <Link to={callPath(step.callId)}>
              audit row <code>{step.callId}</code>
            </Link>
          ) : (
            <span className="muted">
              call <code>{step.callId}</code>
            </span>
          ))}
        {status === 'awaiting_approval' && <Link to="/approvals">waiting in the approvals inbox</Link>}
        {step.approvalId && (
          <span className="muted">
            approval request <code>{step.approvalId}</code>
          </span>
        )}
      </p>
    </article>
  )
}
