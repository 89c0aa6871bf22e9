import { Link, useParams, useSearchParams } from 'react-router'
import { api, ApiError, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { RunStep, RunView } from '../api/types'
import { Chip, Elapsed, ErrorNote, JsonView, StatusChip, Time, Tokens } from '../components'
import { agentPath, runPath } from '../paths'
import { alignSteps, type StepDifference } from './run-compare/align-steps'
import { stepLabel } from './step-label'
import { TOTALS } from './run-totals'

const SAYS: Record<StepDifference, string> = {
  'only-a': 'only in run A',
  'only-b': 'only in run B',
  kind: 'a different kind of step',
  tool: 'a different tool',
  model: 'a different model',
  input: 'a different input',
  output: 'a different outcome',
  status: 'a different status',
  text: 'a different answer',
}

/** Two runs of one agent side by side (`?a=RUN&b=RUN`): their totals, and their steps aligned, with where they part. */
export function RunComparePage() {
  const agentId = useParams().id!
  const [search] = useSearchParams()
  const a = search.get('a')
  const b = search.get('b')
  if (!a || !b) return <ErrorNote error={new ApiError(400, 'invalid_input', 'Pick two runs to compare in the agent’s runs (?a=RUN&b=RUN).')} />
  return <Compare key={`${a} ${b}`} agentId={agentId} a={a} b={b} />
}

const readRun = (id: string) => unwrap(api.GET('/api/runs/{id}', { params: { path: { id } } }))

function Compare({ agentId, a, b }: { agentId: string; a: string; b: string }) {
  const runs = useApi(() => Promise.all([readRun(a), readRun(b)]), [a, b])
  if (runs.error) return <ErrorNote error={runs.error} />
  if (!runs.data) return <p>Loading…</p>
  const [runA, runB] = runs.data
  const back = (
    <p>
      <Link to={agentPath(runA.agent)}>← {runA.agent}</Link>
    </p>
  )
  if (runA.agent !== runB.agent)
    return (
      <section>
        {back}
        <h1>Compare runs</h1>
        <ErrorNote error={new ApiError(400, 'invalid_input', `Run A is a run of ${runA.agent} and run B of ${runB.agent}: compare two runs of one agent.`)} />
      </section>
    )
  const { rows, firstDivergence } = alignSteps(runA.steps ?? [], runB.steps ?? [])
  const first = firstDivergence === null ? null : rows[firstDivergence]!
  return (
    <section className="compare">
      {back}
      <h1>
        Compare runs of <Link to={agentPath(agentId)}>{runA.agent}</Link>
      </h1>
      <table className="plain compared-runs" aria-label="Runs compared">
        <thead>
          <tr>
            <th />
            <th>
              Run A <RunLink run={runA} />
            </th>
            <th>
              Run B <RunLink run={runB} />
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Started</th>
            <td>
              <Time at={runA.createdAt} />
            </td>
            <td>
              <Time at={runB.createdAt} />
            </td>
          </tr>
          <tr>
            <th scope="row">Prompt</th>
            <td className="prompt">{runA.prompt}</td>
            <td className="prompt">{runB.prompt}</td>
          </tr>
          {TOTALS.map(({ key, label, show }) => (
            <tr key={key} data-total={key}>
              <th scope="row">{label}</th>
              <td>{show(runA.totals)}</td>
              <td>{show(runB.totals)}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">Output</th>
            <td className="output">{runA.output ?? runA.error ?? '—'}</td>
            <td className="output">{runB.output ?? runB.error ?? '—'}</td>
          </tr>
        </tbody>
      </table>
      <h2>Steps</h2>
      <p className={first ? 'card notice divergence' : 'card'} role="status" data-testid="divergence">
        {first ? (
          <>
            The runs part at <a href={`#row-${firstDivergence}`}>row {firstDivergence! + 1}</a>: {first.differences.map((d) => SAYS[d]).join(', ')}
            {first.a && first.b && ` (step ${first.a.index + 1} of A, step ${first.b.index + 1} of B)`}.
          </>
        ) : (
          'Both runs took the same steps with the same results.'
        )}
      </p>
      <table className="plain compared-steps" aria-label="Steps compared">
        <thead>
          <tr>
            <th>#</th>
            <th>Run A</th>
            <th>Run B</th>
            <th>Differs in</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, k) => (
            <tr
              key={k}
              id={`row-${k}`}
              data-row={k}
              data-differs={row.differences.join(' ')}
              data-first-divergence={k === firstDivergence || undefined}
              className={k === firstDivergence ? 'first-divergence' : row.differences.length > 0 ? 'differs' : undefined}
            >
              <td>{k + 1}</td>
              <td>{row.a ? <StepSummary step={row.a} differences={row.differences} /> : <span className="muted">—</span>}</td>
              <td>{row.b ? <StepSummary step={row.b} differences={row.differences} /> : <span className="muted">—</span>}</td>
              <td>
                {row.differences.length === 0 ? (
                  <span className="muted">same</span>
                ) : (
                  <span className="chips">
                    {row.differences.map((d) => (
                      <Chip key={d} tone={k === firstDivergence ? 'bad' : 'warn'}>
                        {SAYS[d]}
                      </Chip>
                    ))}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function RunLink({ run }: { run: RunView }) {
  return (
    <span className="chips">
      <Link to={runPath(run.id)}>
        <code>{run.id}</code>
      </Link>
      <StatusChip value={run.status} />
      {run.test && <Chip tone="info">test</Chip>}
    </span>
  )
}

/** One side of an aligned row: what the step did, with the parts that differ from the other side marked. */
function StepSummary({ step, differences }: { step: RunStep; differences: StepDifference[] }) {
  const marked = (part: StepDifference) => (differences.includes(part) ? 'changed' : undefined)
  const n = step.index + 1
  return (
    <div className="step-summary" data-kind={step.kind}>
      <p>
        <span className={marked('tool') ?? marked('model') ?? marked('kind')}>
          {n} · {stepLabel(step)}
        </span>{' '}
        {step.status && <StatusChip value={step.status} />}
      </p>
      {step.kind === 'model' && (
        <p className="muted">
          <Elapsed ms={step.durationMs} /> · <Tokens count={step.usage?.inputTokens} /> in / <Tokens count={step.usage?.outputTokens} /> out
        </p>
      )}
      {step.kind === 'text' && <p className={`said ${marked('text') ?? ''}`}>{step.text || <span className="muted">(no text)</span>}</p>}
      {step.kind === 'tool' && (
        <>
          <h4>Arguments</h4>
          <div className={marked('input')}>
            <JsonView value={step.input} label={`Arguments of step ${n}`} />
          </div>
          <h4>Outcome</h4>
          <div className={marked('output')}>
            {step.error ? <p className="error">{step.error}</p> : <JsonView value={step.output} label={`Outcome of step ${n}`} />}
          </div>
        </>
      )}
    </div>
  )
}
