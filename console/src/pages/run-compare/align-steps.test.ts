import { describe, expect, it } from 'vitest'
import { alignSteps, type ComparedStep } from './align-steps'

const model: ComparedStep = { kind: 'model', status: 'completed', model: { provider: 'mock', modelId: 'm1' } }
const tool = (name: string, input: unknown, output: unknown = { ok: true }, status = 'ok'): ComparedStep => ({
  kind: 'tool',
  tool: name,
  input,
  output,
  status,
})
const text = (said: string): ComparedStep => ({ kind: 'text', text: said })

// Each row as [a's signature, b's signature, differences], to read at a glance.
const shape = (a: ComparedStep[], b: ComparedStep[]) =>
  alignSteps(a, b).rows.map((row) => [row.a?.tool ?? row.a?.kind ?? null, row.b?.tool ?? row.b?.kind ?? null, row.differences])

describe('alignSteps', () => {
  it('finds no divergence in two runs that did the same, whatever order their JSON keys came in', () => {
    const a = [model, tool('echo', { x: 1, y: [1, 2] }), model, text('done')]
    const b = [model, tool('echo', { y: [1, 2], x: 1 }), model, text('done')]
    const aligned = alignSteps(a, b)
    expect(aligned.firstDivergence).toBeNull()
    expect(aligned.rows.every((row) => row.differences.length === 0)).toBe(true)
  })

  it('marks a different input, a different output, a different status and a different answer', () => {
    const a = [model, tool('echo', { m: 'alpha' }, { m: 'alpha' }), tool('write', { v: 1 }), model, text('done')]
    const b = [
      model,
      tool('echo', { m: 'beta' }, { m: 'beta' }),
      { kind: 'tool', tool: 'write', input: { v: 1 }, status: 'awaiting_approval' },
      model,
      text('not yet'),
    ]
    const aligned = alignSteps(a, b)
    expect(aligned.rows.map((row) => row.differences)).toEqual([[], ['input', 'output'], ['output', 'status'], [], ['text']])
    expect(aligned.firstDivergence).toBe(1)
  })

  it('pairs a call of a different tool at the same place, and leaves an extra step on its own side', () => {
    expect(shape([model, tool('echo', {}), model, text('a')], [model, tool('write', {}), model, text('a')])).toEqual([
      ['model', 'model', []],
      ['echo', 'write', ['tool']],
      ['model', 'model', []],
      ['text', 'text', []],
    ])
    // The same call made later still lines up with its twin; what b did first stands alone.
    expect(shape([model, tool('echo', {}), model, text('a')], [model, tool('write', {}), model, tool('echo', {}), model, text('a')])).toEqual([
      ['model', 'model', []],
      [null, 'write', ['only-b']],
      [null, 'model', ['only-b']],
      ['echo', 'echo', []],
      ['model', 'model', []],
      ['text', 'text', []],
    ])
    expect(shape([model, tool('echo', {}), tool('echo', {}), text('a')], [model, tool('echo', {}), text('a')])).toEqual([
      ['model', 'model', []],
      ['echo', 'echo', []],
      ['echo', null, ['only-a']],
      ['text', 'text', []],
    ])
  })

  it('tells a different model, and a failed call by its error', () => {
    const other = { ...model, model: { provider: 'mock', modelId: 'm2' } }
    const failed: ComparedStep = { kind: 'tool', tool: 'echo', input: {}, error: 'boom', status: 'error' }
    expect(shape([model, tool('echo', {})], [other, failed])).toEqual([
      ['model', 'model', ['model']],
      ['echo', 'echo', ['output', 'status']],
    ])
  })

  it('aligns a run with no steps against one with some', () => {
    expect(alignSteps([], []).rows).toEqual([])
    const aligned = alignSteps([], [model, text('a')])
    expect(aligned.rows.map((row) => row.differences)).toEqual([['only-b'], ['only-b']])
    expect(aligned.firstDivergence).toBe(0)
  })
})
