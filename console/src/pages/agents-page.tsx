import { Link } from 'react-router'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { Chip, ErrorNote, ModelName } from '../components'
import { BoundSkills } from './bound-skills'
import { useSkillClasses } from '../api/use-skill-classes'
import { agentPath } from '../paths'
import { AgentAvailability } from './agent-availability'

/** Every agent the key may see (an agent key: its own), with its model, whether it can run, and its bound skills. */
export function AgentsPage() {
  const agents = useApi(() => unwrap(api.GET('/api/agents')), [])
  const classes = useSkillClasses()
  const rows = agents.data?.agents ?? []
  return (
    <section>
      <h1>Agents</h1>
      <ErrorNote error={agents.error} />
      {agents.data && rows.length === 0 && <p className="muted">No agents: declare them in the config (agents: [...]).</p>}
      {rows.length > 0 && (
        <table className="plain agents">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Description</th>
              <th>Model</th>
              <th>Bound skills</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((agent) => (
              <tr key={agent.id} data-agent={agent.id}>
                <td>
                  <Link to={agentPath(agent.id)}>{agent.name}</Link>
                  <div className="muted small">
                    <code>{agent.id}</code>
                    {agent.aliases.length > 0 && <> · also {agent.aliases.join(', ')}</>}
                  </div>
                  {!agent.declared && <Chip tone="warn">no longer in the config</Chip>}
                </td>
                <td>{agent.description || <span className="muted">—</span>}</td>
                <td>
                  <ModelName model={agent.model} />
                  <div>
                    <AgentAvailability agent={agent} />
                  </div>
                </td>
                <td>
                  <BoundSkills skills={agent.skills} classes={classes} label={`Skills bound to ${agent.name}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
