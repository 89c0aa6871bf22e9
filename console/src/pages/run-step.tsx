import { Link } from 'react-router'
import type { RunStep } from '../api/types'
import { Cost, Elapsed, JsonView, ModelName, StatusChip, Time, Tokens } from '../components'
import { callPath } from '../paths'
import { ModelRequestView } from './model-request'

/** One step of a run: a model call (with what it was sent), what the model said, or one tool call with its arguments and outcome. */
export function RunStepCard({ runId, step, readAudit }: { runId: string; step: RunStep; readAudit: boolean }) {
  const n = step.index + 1
  if (step.kind === 'model') {
    const status = step.status ?? 'ok'
    const usage = step.usage
    return (
      <article className="step card model-step" id={`step-${step.index}`} data-step={step.index} data-kind="model" data-status={status}>
        <header>
          <h3>
            Step {n} · model call <StepModel model={step.model} />
          </h3>
          <StatusChip value={status} />
        </header>
        <dl className="facts" aria-label={`Model call of step ${n}`}>
          <dt>Started</dt>
          <dd>
            <Time at={step.startedAt} />
          </dd>
          <dt>First chunk after</dt>
          <dd data-fact="firstChunk">
            <Elapsed ms={step.firstChunkMs} />
          </dd>
          <dt>Took</dt>
          <dd data-fact="duration">
            <Elapsed ms={step.durationMs} />
          </dd>
          <dt>Tokens in / out</dt>
          <dd data-fact="tokens">
            <Tokens count={usage?.inputTokens} /> / <Tokens count={usage?.outputTokens} />
          </dd>
          <dt>Cached input</dt>
          <dd data-fact="cached">
            <Tokens count={usage?.cachedInputTokens} />
            {usage?.cacheWriteTokens ? (
              <span className="muted">
                {' '}
                (<Tokens count={usage.cacheWriteTokens} /> written to the cache)
              </span>
            ) : null}
          </dd>
          {usage?.reasoningTokens ? (
            <>
              <dt>Reasoning</dt>
              <dd>
                <Tokens count={usage.reasoningTokens} />
              </dd>
            </>
          ) : null}
          <dt>Cost</dt>
          <dd data-fact="cost">
            <Cost usd={step.costUsd} />
          </dd>
          <dt>Finished because</dt>
          <dd data-fact="finishReason">{step.finishReason ?? <span className="muted">{status === 'running' ? 'still running' : '—'}</span>}</dd>
        </dl>
        <ModelRequestView runId={runId} index={step.index} />
      </article>
    )
  }
  const timing = (
    <p className="step-timing muted">
      <Time at={step.startedAt} /> · took <Elapsed ms={step.durationMs} />
    </p>
  )
  if (step.kind === 'sampling') {
    const status = step.status ?? 'ok'
    return (
      <article className="step card sampling-step" id={`step-${step.index}`} data-step={step.index} data-kind="sampling" data-status={status}>
        <header>
          <h3>
            Step {n} · sampling for <code>{step.tool}</code> <StepModel model={step.model} />
          </h3>
          <StatusChip value={status} />
        </header>
        {timing}
        <dl className="facts" aria-label={`Sampling of step ${n}`}>
          <dt>Tokens in / out</dt>
          <dd data-fact="tokens">
            <Tokens count={step.usage?.inputTokens} /> / <Tokens count={step.usage?.outputTokens} />
          </dd>
          <dt>Cost</dt>
          <dd data-fact="cost">
            <Cost usd={step.costUsd} />
          </dd>
          <dt>Finished because</dt>
          <dd data-fact="finishReason">{step.finishReason ?? '—'}</dd>
        </dl>
        <div className="columns">
          <div>
            <h4>Asked</h4>
            <JsonView value={step.input} label={`Sampling request of step ${n}`} />
          </div>
          <div>
            <h4>Answered</h4>
            {step.error ? <p className="error">{step.error}</p> : <p className="said">{step.text}</p>}
          </div>
        </div>
      </article>
    )
  }
  if (step.kind === 'text') {
    return (
      <article className="step card" id={`step-${step.index}`} data-step={step.index} data-kind="text">
        <header>
          <h3>Step {n} · answer</h3>
        </header>
        <p className="said">{step.text || <span className="muted">(no text)</span>}</p>
      </article>
    )
  }
  const status = step.status ?? 'called'
  return (
    <article className="step card" id={`step-${step.index}`} data-step={step.index} data-kind="tool" data-status={status}>
      <header>
        <h3>
          Step {n} · tool call <code>{step.tool}</code>
        </h3>
        <StatusChip value={status} />
      </header>
      {step.startedAt && timing}
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

/** The model a model or sampling step called, as provider/model; nothing for a step that names none. */
function StepModel({ model }: { model: RunStep['model'] }) {
  return model ? <ModelName model={{ provider: model.provider, model: model.modelId }} /> : null
}
