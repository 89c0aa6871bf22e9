import { describe, expect, it } from 'vitest'
import type { TreeApproval, TreeCall, TreeRows } from '../store/index.js'
import { buildCallTree, hideSpans, MAX_TREE_SPANS } from './call-tree.js'

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString()
const call = (id: string, start: number, extra: Partial<TreeCall> = {}): TreeCall => ({
  call_id: id,
  parent_call_id: null,
  origin_call_id: null,
  skill_key: `skill_${id}`,
  conversation_id: null,
  status: 'ok',
  started_at: at(start),
  finished_at: at(start + 1),
  edge_name: null,
  spans: null,
  ...extra,
})
const rows = (rootId: string, extra: Partial<TreeRows>): TreeRows => ({
  rootId,
  calls: [],
  runs: [],
  modelSteps: [],
  approvals: [],
  truncated: false,
  ...extra,
})
const approval = (extra: Partial<TreeApproval>): TreeApproval => ({
  id: 'ap',
  call_id: 'a',
  executed_call_id: null,
  skill_key: 'skill_a',
  status: 'pending',
  created_at: at(1),
  decided_at: null,
  expires_at: at(100),
  ...extra,
})

describe('buildCallTree', () => {
  it('orders a parent before its children and siblings by start, whatever order the rows came in', () => {
    const tree = buildCallTree(
      rows('call:a', {
        calls: [call('c', 5, { parent_call_id: 'a' }), call('d', 3, { parent_call_id: 'c' }), call('b', 2, { parent_call_id: 'a' }), call('a', 1)],
      }),
    )
    expect(tree.spans.map((s) => [s.id, s.parentId])).toEqual([
      ['call:a', null],
      ['call:b', 'call:a'],
      ['call:c', 'call:a'],
      ['call:d', 'call:c'],
    ])
    expect(tree).toMatchObject({ startedAt: at(1), endedAt: at(6), truncated: false })
  })

  it('leaves a pending approval open, ends an expired one at its expiry, and keeps the tree open while anything runs', () => {
    const pending = buildCallTree(rows('call:a', { calls: [call('a', 0, { status: 'approval_required' })], approvals: [approval({})] }))
    expect(pending.spans[1]).toMatchObject({ kind: 'approval', parentId: 'call:a', endedAt: null, status: 'pending' })
    expect(pending.endedAt).toBeNull()
    const expired = buildCallTree(rows('call:a', { calls: [call('a', 0)], approvals: [approval({ status: 'expired' })] }))
    expect(expired.spans[1]).toMatchObject({ endedAt: at(100) })
    const running = buildCallTree(rows('call:a', { calls: [call('a', 0, { status: 'running' })] }))
    expect(running.spans[0]!.endedAt).toBeNull()
  })

  it('hangs a call that ran on an approval under it, unless the call waited for it itself (then the approval is inside the call)', () => {
    const asked = buildCallTree(
      rows('call:a', {
        calls: [call('a', 0, { status: 'approval_required' }), call('x', 9)],
        approvals: [approval({ executed_call_id: 'x', status: 'executed', decided_at: at(8) })],
      }),
    )
    expect(asked.spans.map((s) => [s.id, s.parentId])).toEqual([
      ['call:a', null],
      ['approval:ap', 'call:a'],
      ['call:x', 'approval:ap'],
    ])
    const waited = buildCallTree(
      rows('call:a', { calls: [call('a', 0)], approvals: [approval({ executed_call_id: 'a', status: 'executed', decided_at: at(1) })] }),
    )
    expect(waited.spans.map((s) => [s.id, s.parentId])).toEqual([
      ['call:a', null],
      ['approval:ap', 'call:a'],
    ])
  })

  it('shows relays and remote calls kept on the row, and no remote span for a remote call that is in the tree already', () => {
    const relay = { kind: 'relay', holder: 'm2', edge: 'far', from: at(1), to: at(4), taken: at(2), answered: at(3) }
    const tree = buildCallTree(
      rows('call:a', {
        calls: [
          call('a', 0, { spans: JSON.stringify([relay, { kind: 'remote', server: 'self', callId: 'b', from: at(1), to: at(2) }]) }),
          call('b', 1, { origin_call_id: 'a' }),
          call('c', 5, {
            parent_call_id: 'a',
            spans: JSON.stringify([{ kind: 'remote', server: 'far', callId: 'Z', from: at(5), to: at(6) }, { junk: true }]),
          }),
          call('d', 7, { parent_call_id: 'a', spans: 'not json' }),
        ],
      }),
    )
    expect(tree.spans.map((s) => [s.kind, s.name, s.parentId])).toEqual([
      ['call', 'skill_a', null],
      ['call', 'skill_b', 'call:a'],
      ['relay', 'manager m2', 'call:a'],
      ['edge', 'edge far', 'relay:a'],
      ['call', 'skill_c', 'call:a'],
      ['remote', 'far Z', 'call:c'],
      ['call', 'skill_d', 'call:a'],
    ])
  })

  it('puts an agent run at the root: its model steps and its own calls under it, a nested call under its parent', () => {
    const run = { id: 'r', agent_id: 'helper', status: 'completed', created_at: at(0), finished_at: at(9), test: 0 }
    const step = { run_id: 'r', status: 'ok', finished_at: at(2), model: 'gpt', input_tokens: 10, output_tokens: 2, cost_usd: null }
    const tree = buildCallTree(
      rows('run:r', {
        runs: [run],
        modelSteps: [
          { ...step, idx: 0, started_at: at(1) },
          { ...step, idx: 3, started_at: at(5), finished_at: null, status: 'running' },
        ],
        calls: [call('a', 3, { conversation_id: 'run:r' }), call('b', 3, { conversation_id: 'run:r', parent_call_id: 'a' })],
      }),
    )
    expect(tree.spans.map((s) => [s.id, s.parentId])).toEqual([
      ['run:r', null],
      ['model:r:0', 'run:r'],
      ['call:a', 'run:r'],
      ['call:b', 'call:a'],
      ['model:r:3', 'run:r'],
    ])
    expect(tree.spans[1]).toMatchObject({ kind: 'model', name: 'gpt', stepIndex: 0, usage: { inputTokens: 10, outputTokens: 2 }, costUsd: null })
    expect(tree.endedAt).toBeNull()
  })

  it('caps the spans and says so', () => {
    const calls = [call('root', 0), ...Array.from({ length: MAX_TREE_SPANS + 5 }, (_, i) => call(`c${i}`, 1, { parent_call_id: 'root' }))]
    const tree = buildCallTree(rows('call:root', { calls }))
    expect(tree.spans).toHaveLength(MAX_TREE_SPANS)
    expect(tree.truncated).toBe(true)
  })
})

describe('hideSpans', () => {
  it('keeps a hidden span in its place with its times and status, renaming it and what hangs from it', () => {
    const tree = buildCallTree(rows('call:a', { calls: [call('a', 0), call('b', 1, { parent_call_id: 'a' }), call('c', 2, { parent_call_id: 'b' })] }))
    const shown = hideSpans(tree, (span) => span.callId !== 'b')
    expect(shown.spans).toEqual([
      tree.spans[0],
      { id: 'hidden:1', parentId: 'call:a', kind: 'call', name: 'hidden', startedAt: at(1), endedAt: at(2), status: 'ok' },
      { ...tree.spans[2], parentId: 'hidden:1' },
    ])
    expect(hideSpans(tree, () => false).rootId).toBe('hidden:0')
  })
})
