import { openPlane, type Plane, type PlaneOptions } from '../plane/index.js'
import { AgentRunner } from './agent-runner.js'
import { testRunSkill } from './test-run-skill.js'

export interface SkillplaneOptions extends Omit<PlaneOptions, 'builtIns'> {
  /**
   * Resume agent runs once their approvals are decided (here or on another manager). Default
   * true; one-shot processes turn it off, so they never exit in the middle of a resumed run.
   */
  resumeRuns?: boolean
}

/** The plane with what runs on it: agent runs (started here, resumed when approvals are decided). */
export interface Skillplane extends Plane {
  /** Agent runs: start, list, show; runs waiting for approval resume when it is decided. */
  readonly runs: AgentRunner
}

/** Open skillplane: the plane, then the agent runner built on it. */
export async function createSkillplane(options: SkillplaneOptions = {}): Promise<Skillplane> {
  let runner: AgentRunner | undefined
  const { plane, runRecords } = await openPlane({
    ...options,
    // Agents with a model can be test-run, by people and by the tools of other agents.
    builtIns: (config) => (config.agents.some((a) => a.model) ? [{ definition: testRunSkill(() => runner), origin: 'built-in (agent runner)' }] : []),
  })
  const runs = new AgentRunner(plane, { resume: options.resumeRuns ?? true, records: runRecords })
  runner = runs
  const closePlane = plane.close
  // New calls are refused at once; the runner stops next: its runs end, stored, before the pipeline they call closes.
  const close = () => {
    plane.stopAccepting()
    return runs.close().then(closePlane)
  }
  return Object.assign(plane, { runs, close })
}
