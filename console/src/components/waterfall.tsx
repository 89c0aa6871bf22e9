import { useEffect, useMemo, useState } from 'react'
import { Link } from 'react-router'
import type { CallTree, Span } from '../api/types'
import { callPath, runPath } from '../paths'
import { StatusChip, statusTone } from './chips'
import { formatDuration, layoutWaterfall, type WaterfallAxis } from './waterfall-layout'

const KIND_LABEL: Record<Span['kind'], string> = {
  run: 'agent run',
  model: 'model step',
  call: 'call',
  approval: 'approval wait',
  relay: 'relay',
  edge: 'edge',
  remote: 'remote call',
  elicitation: 'question to the caller',
  sampling: "caller's model",
}

/** Where a span opens: its approval, its call, its run's step, or its run. */
export function spanHref(span: Span): string | null {
  if (span.kind === 'approval' && span.approvalId) return `/approvals#req-${encodeURIComponent(span.approvalId)}`
  if (span.callId) return callPath(span.callId)
  if (span.runId && span.stepIndex != null) return `${runPath(span.runId)}#step-${span.stepIndex}`
  if (span.runId) return runPath(span.runId)
  return null
}

const tokens = (span: Span) =>
  span.usage && (span.usage.inputTokens != null || span.usage.outputTokens != null)
    ? `${span.usage.inputTokens ?? '?'} in → ${span.usage.outputTokens ?? '?'} out tokens`
    : null
const cost = (span: Span) => (span.costUsd != null ? `$${span.costUsd.toFixed(span.costUsd < 0.01 ? 5 : 3)}` : null)

/** What the caller answered a question (elicitation) or its model said (sampling), in a few words. */
function asked(span: Span): string | null {
  const answer = span.elicitation ?? span.sampling
  if (answer?.error) return answer.error
  if (span.elicitation?.content) return `answered ${Object.keys(span.elicitation.content).join(', ')}`
  if (span.sampling?.text) return span.sampling.text.length > 60 ? `${span.sampling.text.slice(0, 59)}…` : span.sampling.text
  return null
}

/** Everything a span's hover shows, one fact a line. */
function spanTitle(span: Span, durationMs: number, pending: boolean): string {
  return [
    `${span.name} (${KIND_LABEL[span.kind]})`,
    `${span.status.replace(/_/g, ' ')} · ${formatDuration(durationMs)}${pending ? ' so far' : ''}`,
    span.managerId && `manager ${span.managerId}`,
    span.edge && `edge ${span.edge}`,
    tokens(span),
    cost(span),
  ]
    .filter(Boolean)
    .join('\n')
}

/** The time now, moving once a second while `ticking` (a pending span grows to it). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!ticking) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [ticking])
  return now
}

const pct = (fraction: number) => `${(fraction * 100).toFixed(3)}%`

/**
 * A call tree as a waterfall: one row per span in tree order, indented under its parent, with a bar on
 * a time axis all rows share. Approval waits are hatched, apart from working time; long waits break
 * the axis (see waterfall-layout.ts). Each row is text first (name, status, duration); the bars add the when.
 */
export function Waterfall({ tree, highlight }: { tree: CallTree; highlight?: string }) {
  const pending = tree.endedAt == null || tree.spans.some((s) => s.endedAt == null)
  const now = useNow(pending)
  const { rows, axis } = useMemo(() => layoutWaterfall(tree, now), [tree, now])
  return (
    <div className="waterfall" data-testid="waterfall" data-axis={axis.kind}>
      <table>
        <caption className="visually-hidden">
          Call tree, {rows.length} spans over {formatDuration(axis.durationMs)}
          {axis.kind === 'broken' && `; the time axis is broken at ${axis.breaks.length === 1 ? 'a long wait' : `${axis.breaks.length} long waits`}`}
        </caption>
        <colgroup>
          <col className="wf-col-name" />
          <col className="wf-col-status" />
          <col className="wf-col-duration" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col" className="wf-track">
              <span className="visually-hidden">Timeline</span>
              <Axis axis={axis} />
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ span, depth, offset, width, durationMs, pending }) => {
            const href = spanHref(span)
            const detail = [span.kind === 'model' && tokens(span), span.kind === 'model' && cost(span), span.edge && `on ${span.edge}`, asked(span)]
              .filter(Boolean)
              .join(' · ')
            return (
              <tr
                key={span.id}
                data-span={span.id}
                data-kind={span.kind}
                data-status={span.status}
                data-depth={depth}
                className={span.id === highlight ? 'wf-current' : undefined}
                aria-current={span.id === highlight ? 'true' : undefined}
                title={spanTitle(span, durationMs, pending)}
              >
                <td className="wf-name" style={{ paddingLeft: `${0.4 + Math.min(depth, 12) * 1.1}rem` }}>
                  {href ? <Link to={href}>{span.name}</Link> : span.name} <span className="muted">{KIND_LABEL[span.kind]}</span>
                  {detail && <span className="wf-detail muted">{detail}</span>}
                </td>
                <td>
                  <StatusChip value={span.status} />
                </td>
                <td className="wf-duration">
                  {formatDuration(durationMs)}
                  {pending && <span className="muted"> so far</span>}
                </td>
                <td className="wf-track">
                  <div className="wf-lane">
                    {axis.breaks.map((b) => (
                      <span key={b.offset} className="wf-break" style={{ left: pct(b.offset), width: pct(b.width) }} />
                    ))}
                    {href ? (
                      <Link to={href} className={barClass(span, pending)} style={{ left: pct(offset), width: pct(width) }} tabIndex={-1} aria-hidden="true" />
                    ) : (
                      <span className={barClass(span, pending)} style={{ left: pct(offset), width: pct(width) }} />
                    )}
                  </div>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <p className="wf-legend muted">
        {[...new Set(rows.map((r) => r.span.kind))].map((kind) => (
          <span key={kind}>
            <span className={`wf-swatch wf-${kind}`} /> {KIND_LABEL[kind]}
          </span>
        ))}
        {axis.kind === 'broken' && (
          <span>
            <span className="wf-swatch wf-break-swatch" /> a long wait, drawn narrow
          </span>
        )}
      </p>
      {tree.truncated && <p className="muted">The tree is larger than the server returns at once: only its first {rows.length} spans are shown.</p>}
    </div>
  )
}

const barClass = (span: Span, pending: boolean) => `wf-bar wf-${span.kind} wf-${statusTone(span.status)}${pending ? ' wf-pending' : ''}`

/** Tick labels over the timeline column, and each break with how long it lasted. */
function Axis({ axis }: { axis: WaterfallAxis }) {
  return (
    <span className="wf-axis" aria-hidden="true">
      {axis.breaks.map((b) => (
        <span key={`break-${b.offset}`} className="wf-break" style={{ left: pct(b.offset), width: pct(b.width) }}>
          <span className="wf-break-label">{formatDuration(b.durationMs)}</span>
        </span>
      ))}
      {axis.ticks.map((t) => (
        <span key={`${t.at}-${t.label}`} className={t.at > 0.9 ? 'wf-tick wf-tick-end' : 'wf-tick'} style={{ left: pct(t.at) }}>
          {t.label}
        </span>
      ))}
    </span>
  )
}
