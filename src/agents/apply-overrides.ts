import type { ResolvedAgent, ResolvedModel } from '../config/index.js'
import { RunError } from './run-error.js'

// What a test run may change, and how each value is read. Never where requests go or which key
// they carry: that would let a test run send a server's secret to any URL.
const PATHS: Record<string, (agent: ResolvedAgent, value: string) => ResolvedAgent> = {
  systemPrompt: (agent, value) => ({ ...agent, systemPrompt: value }),
  maxSteps: (agent, value) => {
    const steps = Number(value)
    if (!Number.isInteger(steps) || steps < 1 || steps > 100) throw new RunError(`--set maxSteps: a whole number from 1 to 100, got "${value}"`)
    return { ...agent, maxSteps: steps }
  },
  'model.model': (agent, value) => {
    if (!/^[\w.:/@-]{1,200}$/.test(value)) throw new RunError(`--set model.model: a model id (letters, digits, . : / @ - _), got "${value}"`)
    // Another model has other prices: the configured ones don't apply to it.
    const { pricing: _pricing, ...rest } = settings(agent, 'model.model')
    return { ...agent, model: { ...rest, model: value } }
  },
}

function settings(agent: ResolvedAgent, path: string): ResolvedModel {
  const model = agent.model
  if (!model || typeof (model as { doGenerate?: unknown }).doGenerate === 'function') {
    throw new RunError(`--set ${path}: agent "${agent.name}" has no provider settings to change`)
  }
  return model as ResolvedModel
}

/** The agent with a test run's in-memory changes (`path=value`); nothing is saved. */
export function applyOverrides(agent: ResolvedAgent, overrides: Record<string, string>): ResolvedAgent {
  let changed = agent
  for (const [path, value] of Object.entries(overrides)) {
    const apply = PATHS[path]
    if (!apply) throw new RunError(`--set ${path}: not a setting a test run can change (${Object.keys(PATHS).join(', ')})`)
    changed = apply(changed, value)
  }
  return changed
}
