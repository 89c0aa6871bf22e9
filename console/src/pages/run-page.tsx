import { useEffect, useMemo, useState } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { useEventStream, type StreamEvent } from '../api/use-event-stream'
import type { RunStep, RunView } from '../api/types'
import { Chip, ErrorNote, StatusChip, Time } from '../components'
import { useSession } from '../session/session'
import { RunStepCard } from './run-step'
import { RunInputCard } from './run-input-card'
import { RunTimeline } from './run-timeline'
import { RunTotalsView } from './run-totals'
import { RunWaterfall } from './run-waterfall'
import { agentPath } from '../paths'

export function RunPage() {
  const id = useParams().id!
  // A new run starts with nothing streamed.
  return <Run key={id} id={id} />
}

const ended = (event: StreamEvent) => event.event === 'end'
const RESUME_POLL_MS = 2000
// How often an unfinished run's clock and its open bars move on.
const TICK_MS = 500

/** The time now, moving on every `ms` while `ms` is set. */
function useNow(ms: number | null): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (ms === null) return
    const timer = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(timer)
  }, [ms])
  return now
}

/** One run: its header, and its steps as they happen (GET /api/runs/{id}/events) until it ends. */
function Run({ id }: { id: string }) {
  const { abilities: can } = useSession()
  const [round, setRound] = useState(0)
  // The steps as cards, or the run's call tree as a waterfall (?view=waterfall): a shared link keeps the view.
  const [search, setSearch] = useSearchParams()
  const view = search.get('view') === 'waterfall' ? 'waterfall' : 'steps'
  // Steps by index, each with the write (`rev`) it came in: a newer write replaces the step.
  const [streamed, setStreamed] = useState<Map<number, { rev: number; step: RunStep }>>(new Map())
  const loaded = useApi(() => unwrap(api.GET('/api/runs/{id}', { params: { path: { id } } })), [id, round])
  const [end, setEnd] = useState<RunView>()
  const live = useEventStream(
    end ? null : `/api/runs/${id}/events`,
    (event) => {
      if (event.event === 'end') setEnd(JSON.parse(event.data) as RunView)
      if (event.event !== 'step') return
      const step = JSON.parse(event.data) as RunStep
      const rev = Number(event.id ?? 0)
      setStreamed((steps) => ((steps.get(step.index)?.rev ?? -1) >= rev ? steps : new Map(steps).set(step.index, { rev, step })))
    },
    ended,
  )
  // A paused run goes on by itself once its requests are decided (or its accounts connected): look every few seconds, then follow it again.
  const paused = end?.status === 'awaiting_approval' || end?.status === 'needs_auth'
  useEffect(() => {
    if (!paused) return
    const timer = setInterval(async () => {
      const now = await unwrap(api.GET('/api/runs/{id}', { params: { path: { id } } })).catch(() => null)
      if (now && now.status !== end?.status) {
        setEnd(undefined)
        setRound((r) => r + 1)
      }
    }, RESUME_POLL_MS)
    return () => clearInterval(timer)
  }, [paused, id, end?.status])
  const steps = useMemo(() => {
    const byIndex = new Map<number, RunStep>()
    for (const step of loaded.data?.steps ?? []) byIndex.set(step.index, step)
    for (const { step } of streamed.values()) byIndex.set(step.index, step)
    return [...byIndex.values()].sort((a, b) => a.index - b.index)
  }, [loaded.data, streamed])
  // The run's totals are the server's: the run is read again when a step finished since it was last read.
  const finished = steps.filter((step) => step.finishedAt !== null).length
  const finishedWhenRead = loaded.data?.steps?.filter((step) => step.finishedAt !== null).length ?? 0
  const { reload, loading } = loaded
  const stale = !end && !!loaded.data && !loading && finished > finishedWhenRead
  useEffect(() => {
    if (stale) reload()
  }, [stale, reload])
  const run = end ?? loaded.data
  const now = useNow(run && run.finishedAt === null ? TICK_MS : null)
  if (loaded.error) return <ErrorNote error={loaded.error} />
  if (!run) return <p>Loading…</p>
  const followAgain = () => {
    setEnd(undefined)
    setRound((r) => r + 1)
  }
  return (
    <section>
      <p>
        <Link to={agentPath(run.agent)}>← {run.agent}</Link>
      </p>
      <h1>
        Run <code>{run.id}</code>{' '}
        <span data-testid="run-status" data-status={run.status}>
          <StatusChip value={run.status} />
        </span>{' '}
        {run.test && <Chip tone="info">test run</Chip>}{' '}
        <span className={live ? 'live on' : 'live'} data-testid="live" data-live={live}>
          {end ? 'ended' : live ? 'live' : 'connecting…'}
        </span>
      </h1>
      <dl className="facts">
        <dt>Agent</dt>
        <dd>
          <Link to={agentPath(run.agent)}>{run.agent}</Link>
        </dd>
        <dt>Requester</dt>
        <dd>{run.requester.name}</dd>
        <dt>Started</dt>
        <dd>
          <Time at={run.createdAt} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <Time at={run.finishedAt} />
        </dd>
        {run.overrides && (
          <>
            <dt>Changed for this run</dt>
            <dd>
              {Object.entries(run.overrides).map(([path, value]) => (
                <code key={path}>
                  {path}={value}
                </code>
              ))}
            </dd>
          </>
        )}
        <dt>Prompt</dt>
        <dd className="prompt">{run.prompt}</dd>
        {run.error && (
          <>
            <dt>Error</dt>
            <dd className="error">{run.error}</dd>
          </>
        )}
      </dl>
      {run.status === 'awaiting_approval' && (
        <div className="card notice" role="status">
          <p>
            The run waits for {run.pending.length === 1 ? 'a decision' : `${run.pending.length} decisions`} on {run.pending.map((p) => p.tool).join(', ')}:
            decide in the <Link to="/approvals">approvals inbox</Link>. It goes on once every request is decided, and this page follows it again.
          </p>
          {end && (
            <button type="button" onClick={followAgain}>
              Follow again
            </button>
          )}
        </div>
      )}
      {run.status === 'needs_auth' && (
        <div className="card notice" role="status">
          <p>The run waits for {run.requester.name} to connect an account before it goes on, by itself, once they have:</p>
          <ul>
            {run.pending
              .filter((p) => p.authorizationUrl)
              .map((p) => (
                <li key={p.toolCallId}>
                  <a href={p.authorizationUrl!}>Connect {p.provider}</a> for {p.tool}
                </li>
              ))}
          </ul>
          {end && (
            <button type="button" onClick={followAgain}>
              Follow again
            </button>
          )}
        </div>
      )}
      {steps.some((step) => step.kind === 'input' && step.status === 'awaiting_input') && (
        <div className="card notice" role="status" data-testid="awaiting-input">
          <p>A tool call of this run waits for a person&apos;s input: answer it at its step below. The call goes on once it is answered.</p>
        </div>
      )}
      <RunTotalsView
        totals={run.status === 'running' && run.totals.durationMs === null ? { ...run.totals, durationMs: now - Date.parse(run.createdAt) } : run.totals}
      />
      <div className="view-switch" role="group" aria-label="View">
        <button type="button" aria-pressed={view === 'steps'} onClick={() => setSearch({}, { replace: true })}>
          Steps
        </button>
        <button type="button" aria-pressed={view === 'waterfall'} onClick={() => setSearch({ view: 'waterfall' }, { replace: true })}>
          Waterfall
        </button>
      </div>
      {view === 'waterfall' ? (
        <>
          <h2>Waterfall</h2>
          <RunWaterfall runId={run.id} version={finished + (end ? 1 : 0)} />
        </>
      ) : (
        <>
          <h2>Steps</h2>
          {steps.length === 0 && <p className="muted">{run.status === 'running' ? 'Waiting for the first step…' : 'No steps.'}</p>}
          {/* A run recorded before steps were timed has no timeline. */}
          {steps.some((step) => step.startedAt !== null) && <RunTimeline startedAt={run.createdAt} endedAt={run.finishedAt} steps={steps} now={now} />}
          <ol className="steps" aria-label="Steps" aria-live="polite">
            {steps.map((step) => (
              <li key={step.index}>
                {step.kind === 'input' ? <RunInputCard run={run} step={step} /> : <RunStepCard runId={run.id} step={step} readAudit={can.readAudit} />}
              </li>
            ))}
          </ol>
        </>
      )}
      {run.output !== null && (
        <>
          <h2>Output</h2>
          <p className="output" data-testid="run-output">
            {run.output}
          </p>
        </>
      )}
    </section>
  )
}
