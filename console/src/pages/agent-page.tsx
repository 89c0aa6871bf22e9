import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { api, ApiError, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { AgentView } from '../api/types'
import { Chip, ClassChip, ErrorNote } from '../components'
import { useSession } from '../session/session'
import { abilities } from '../session/abilities'
import { ModelName, useSkillClasses } from './bound-skills'
import { StartRunForm } from './start-run-form'
import { TestRunForm } from './test-run-form'
import { AgentRuns } from './agent-runs'

/** One agent: its bindings, its runs, and (by role) starting a run or a test run. */
export function AgentPage() {
  const id = useParams().id!
  const { caller } = useSession()
  const can = abilities(caller)
  const agents = useApi(() => unwrap<{ agents: AgentView[] }>(api.GET('/api/agents')), [])
  const classes = useSkillClasses()
  // A finished test run shows in the runs below.
  const [tested, setTested] = useState(0)
  if (agents.error) return <ErrorNote error={agents.error} />
  if (!agents.data) return <p>Loading…</p>
  const wanted = id.toLowerCase()
  const agent = agents.data.agents.find((a) => a.id === wanted || [a.name, ...a.aliases].some((label) => label.toLowerCase() === wanted))
  if (!agent) return <ErrorNote error={new ApiError(404, 'not_found', `no agent "${id}"`)} />
  return (
    <section>
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      <h1>
        {agent.name} <code>{agent.id}</code>
      </h1>
      <p className="chips">
        <ModelName model={agent.model} />
        {agent.aliases.length > 0 && <span className="muted">also {agent.aliases.join(', ')}</span>}
        {!agent.declared && <Chip tone="warn">no longer in the config</Chip>}
      </p>
      {agent.description && <p className="description">{agent.description}</p>}
      <h2>Bindings ({agent.skills.length})</h2>
      <table className="plain bindings" aria-label="Bindings">
        <thead>
          <tr>
            <th>Skill</th>
            <th>Class</th>
          </tr>
        </thead>
        <tbody>
          {agent.skills.map((key) => (
            <tr key={key}>
              <td>
                <Link to={`/skills/${key}`}>{key}</Link>
              </td>
              <td>{classes.has(key) ? <ClassChip value={classes.get(key)!} /> : <span className="muted">not visible to your key</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {agent.skills.length === 0 && <p className="muted">No skills are bound to this agent.</p>}
      {(can.runAgents || can.testRunAgents) && (
        <div className="columns run-forms">
          {can.runAgents && <StartRunForm agent={agent} />}
          {can.testRunAgents && <TestRunForm agent={agent} onFinished={() => setTested((n) => n + 1)} />}
        </div>
      )}
      {!can.runAgents && <p className="muted">Your key can't run this agent or read its runs.</p>}
      {can.readRuns && <AgentRuns agentId={agent.id} refresh={tested} />}
    </section>
  )
}
