import { describe, expect, it } from 'vitest'
import { formatDuration, layoutWaterfall, type SpanTiming } from './waterfall-layout'

const T0 = Date.parse('2026-01-01T00:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()
const HOUR = 3_600_000
const span = (id: string, parentId: string | null, from: number, to: number | null, kind = 'call'): SpanTiming => ({
  id,
  parentId,
  kind,
  startedAt: at(from),
  endedAt: to == null ? null : at(to),
})
const tree = (spans: SpanTiming[], endedAt: number | null) => ({ startedAt: spans[0]!.startedAt, endedAt: endedAt == null ? null : at(endedAt), spans })
const byId = (layout: ReturnType<typeof layoutWaterfall>) => Object.fromEntries(layout.rows.map((r) => [r.span.id, r]))

describe('layoutWaterfall', () => {
  it('indents each span under its parent, in the order given, and keeps a span whose parent is missing at the top', () => {
    const layout = layoutWaterfall(
      tree([span('root', null, 0, 100), span('a', 'root', 10, 40), span('a1', 'a', 20, 30), span('b', 'root', 50, 90), span('lost', 'gone', 60, 70)], 100),
      T0 + 100,
    )
    expect(layout.rows.map((r) => [r.span.id, r.depth])).toEqual([
      ['root', 0],
      ['a', 1],
      ['a1', 2],
      ['b', 1],
      ['lost', 0],
    ])
  })

  it('puts bars on one linear axis when nothing waits long, with ticks in steps that fit', () => {
    const layout = layoutWaterfall(tree([span('root', null, 0, 1000), span('child', 'root', 200, 500)], 1000), T0 + 1000)
    expect(layout.axis).toMatchObject({ kind: 'linear', durationMs: 1000, breaks: [] })
    const child = byId(layout).child!
    expect(child.offset).toBeCloseTo(0.2)
    expect(child.width).toBeCloseTo(0.3)
    expect(child.durationMs).toBe(300)
    expect(layout.axis.ticks.map((t) => t.label)).toEqual(['0', '200 ms', '400 ms', '600 ms', '800 ms', '1 s'])
    expect(layout.axis.ticks.map((t) => t.at)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1].map((x) => expect.closeTo(x)))
  })

  it('keeps a short approval wait on the linear axis', () => {
    const layout = layoutWaterfall(
      tree([span('asked', null, 0, 100), span('wait', 'asked', 100, 150, 'approval'), span('ran', 'asked', 150, 250)], 250),
      T0 + 250,
    )
    expect(layout.axis.kind).toBe('linear')
    expect(byId(layout).wait!.offset).toBeCloseTo(0.4)
    expect(byId(layout).wait!.width).toBeCloseTo(0.2)
  })

  it('breaks the axis at an approval wait longer than all the work, so milliseconds of calls stay readable beside hours of waiting', () => {
    // Ask mode: a refused call (10 ms), two hours for a person, then the approved call (20 ms) and its ctx.invoke child.
    const layout = layoutWaterfall(
      tree(
        [
          span('refused', null, 0, 10),
          span('wait', 'refused', 10, 2 * HOUR, 'approval'),
          span('executed', 'refused', 2 * HOUR, 2 * HOUR + 20),
          span('child', 'executed', 2 * HOUR + 5, 2 * HOUR + 15),
        ],
        2 * HOUR + 20,
      ),
      T0 + 3 * HOUR,
    )
    expect(layout.axis.kind).toBe('broken')
    expect(layout.axis.breaks).toEqual([{ offset: expect.closeTo((10 * 0.94) / 30), width: 0.06, durationMs: 2 * HOUR - 10 }])
    const { refused, wait, executed, child } = byId(layout)
    const ms = 0.94 / 30 // the rest of the axis shared by the 30 ms of work
    expect(refused!.width).toBeCloseTo(10 * ms)
    expect(wait).toMatchObject({ offset: expect.closeTo(10 * ms), width: expect.closeTo(0.06), durationMs: 2 * HOUR - 10 })
    expect(executed).toMatchObject({ offset: expect.closeTo(10 * ms + 0.06), width: expect.closeTo(20 * ms) })
    expect(child!.offset).toBeCloseTo(15 * ms + 0.06)
    expect(executed!.offset + executed!.width).toBeCloseTo(1)
    // Each stretch is ticked on its own: after the break, from where it starts (time since the tree began).
    const labels = layout.axis.ticks.map((t) => t.label)
    expect(labels[0]).toBe('0')
    expect(labels).toContain('2 h')
    expect(labels.filter((l) => l.startsWith('+')).length).toBeGreaterThan(0)
    expect(labels.filter((l) => l.startsWith('+')).every((l) => l.endsWith(' ms'))).toBe(true)
    // Labels keep clear of the break (the next stretch's first label stands after it) and of the axis' end.
    const [gap] = layout.axis.breaks
    const before = layout.axis.ticks.filter((t) => t.at < gap!.offset)
    expect(before.every((t) => t.at === 0 || t.at <= gap!.offset - 0.14 / 3)).toBe(true)
    expect(layout.axis.ticks.every((t) => t.at <= 1 - 0.07 || t.at > 1 - 1e-9)).toBe(true)
  })

  it('does not count a call waiting in-line for a decision as working while it waits', () => {
    const layout = layoutWaterfall(tree([span('call', null, 0, HOUR + 20), span('wait', 'call', 5, HOUR + 5, 'approval')], HOUR + 20), T0 + HOUR + 20)
    expect(layout.axis.kind).toBe('broken')
    expect(layout.axis.breaks).toHaveLength(1)
    const call = byId(layout).call!
    // The call's bar spans the whole axis, through the break.
    expect(call.offset).toBe(0)
    expect(call.width).toBeCloseTo(1)
    expect(call.durationMs).toBe(HOUR + 20)
  })

  it('counts a question put to the caller as waiting for a person, like an approval', () => {
    const layout = layoutWaterfall(tree([span('call', null, 0, HOUR + 20), span('ask', 'call', 5, HOUR + 5, 'elicitation')], HOUR + 20), T0 + HOUR + 20)
    expect(layout.axis.kind).toBe('broken')
    const sampled = layoutWaterfall(tree([span('call', null, 0, HOUR + 20), span('ask', 'call', 5, HOUR + 5, 'sampling')], HOUR + 20), T0 + HOUR + 20)
    expect(sampled.axis.kind).toBe('linear')
  })

  it('runs a pending wait to now, broken when it has outlasted the work', () => {
    const layout = layoutWaterfall(tree([span('asked', null, 0, 40), span('wait', 'asked', 40, null, 'approval')], null), T0 + 3 * HOUR)
    const wait = byId(layout).wait!
    expect(wait).toMatchObject({ pending: true, durationMs: 3 * HOUR - 40 })
    expect(wait.offset + wait.width).toBeCloseTo(1)
    expect(byId(layout).asked!.pending).toBe(false)
    expect(layout.axis).toMatchObject({ kind: 'broken', durationMs: 3 * HOUR })
  })

  it('draws a pending span that started after now (a clock ahead of this browser) with no length, not a negative one', () => {
    const layout = layoutWaterfall(tree([span('root', null, 0, 100), span('late', 'root', 50, null)], 100), T0 + 20)
    expect(byId(layout).late).toMatchObject({ durationMs: 0, width: 0, offset: expect.closeTo(0.5) })
  })

  it('gives zero-length spans a place and no width, and a tree of only instants one tick', () => {
    const instant = layoutWaterfall(tree([span('root', null, 0, 0), span('child', 'root', 0, 0)], 0), T0)
    expect(instant.rows.map((r) => [r.offset, r.width, r.durationMs])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
    ])
    expect(instant.axis).toMatchObject({ kind: 'linear', durationMs: 0, ticks: [{ at: 0, label: '0' }] })
    const within = layoutWaterfall(tree([span('root', null, 0, 100), span('mark', 'root', 25, 25)], 100), T0 + 100)
    expect(byId(within).mark).toMatchObject({ offset: expect.closeTo(0.25), width: 0, durationMs: 0 })
  })

  it('never breaks the axis when no span works (only waits and instants)', () => {
    const layout = layoutWaterfall(tree([span('asked', null, 0, 0), span('wait', 'asked', 0, HOUR, 'approval')], HOUR), T0 + HOUR)
    expect(layout.axis.kind).toBe('linear')
    expect(byId(layout).wait!.width).toBeCloseTo(1)
  })
})

describe('formatDuration', () => {
  it('reads in the unit that fits', () => {
    expect([0, 7, 999, 1500, 59_999, 125_000, 3 * HOUR + 10 * 60_000, 2 * 24 * HOUR + 4 * HOUR].map(formatDuration)).toEqual([
      '0',
      '7 ms',
      '999 ms',
      '1.5 s',
      '60 s',
      '2 min 5 s',
      '3 h 10 min',
      '2 d 4 h',
    ])
  })
})
