import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { api, ApiError, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { AgentView } from '../api/types'
import { Chip, ClassChip, DecisionChip, ErrorNote, ModelName } from '../components'
import { useSession } from '../session/session'
import { useSkillClasses } from '../api/use-skill-classes'
import { StartRunForm } from './start-run-form'
import { TestRunForm } from './test-run-form'
import { AgentRuns } from './agent-runs'
import { HealthCharts } from './health-charts'
import { skillPath } from '../paths'
import { AgentAvailability } from './agent-availability'

/** One agent: its bindings, its runs, and (by role) starting a run or a test run. */
export function AgentPage() {
  const id = useParams().id!
  const { abilities: can } = useSession()
  const agents = useApi(() => unwrap(api.GET('/api/agents')), [])
  const classes = useSkillClasses()
  const found = agents.data?.agents.find((a) => a.id === id.toLowerCase() || [a.name, ...a.aliases].some((label) => label.toLowerCase() === id.toLowerCase()))
  const policy = useAgentPolicy(found ?? null)
  // A finished test run shows in the runs below.
  const [tested, setTested] = useState(0)
  if (agents.error) return <ErrorNote error={agents.error} />
  if (!agents.data) return <p>Loading…</p>
  const agent = found
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
        <AgentAvailability agent={agent} />
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
            {policy && <th>Policy for this agent</th>}
          </tr>
        </thead>
        <tbody>
          {agent.skills.map((key) => (
            <tr key={key}>
              <td>
                <Link to={skillPath(key)}>{key}</Link>
              </td>
              <td>{classes.has(key) ? <ClassChip value={classes.get(key)!} /> : <span className="muted">not visible to your key</span>}</td>
              {policy && <td>{policy.get(key) ? <DecisionChip value={policy.get(key)!.decision} title={policy.get(key)!.reason} /> : '—'}</td>}
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
      {can.runAgents && <AgentRuns agentId={agent.id} refresh={tested} />}
      {can.readAudit && <HealthCharts dim="agent" value={agent.id} />}
    </section>
  )
}

/**
 * The effective decision on each bound skill when this agent calls it, from the server's own policy
 * decision: admins ask about any agent, an agent key about itself; others are not told.
 */
function useAgentPolicy(agent: AgentView | null) {
  const { caller, abilities } = useSession()
  const subject = !agent ? null : abilities.managePolicies ? `agent:${agent.id}` : caller.kind === 'agent' && caller.agentId === agent.id ? 'self' : null
  const skills = agent?.skills.join(',') ?? ''
  const effective = useApi(
    async () => (subject && skills ? unwrap(api.GET('/api/policies/effective', { params: { query: { subject, skill: skills, limit: 500 } } })) : null),
    [subject, skills],
  )
  if (!subject || !effective.data) return null
  return new Map(effective.data.skills.map((row) => [row.key, row.cells[0]!]))
}
