import type { McpServer } from '../api/types'
import { Chip, Time } from '../components'
import { ProblemList } from './problem-list'

const STATE_TONE: Record<string, 'good' | 'warn' | 'bad' | 'info' | 'plain'> = {
  connected: 'good',
  connecting: 'info',
  idle: 'plain',
  closed: 'plain',
  needs_auth: 'warn',
  down: 'bad',
}

/** The configured MCP servers: connected or why not, the skills their tools became, the tools that could not. */
export function McpServers({ servers }: { servers: McpServer[] }) {
  return (
    <>
      <h2 id="mcp-servers">MCP servers</h2>
      {servers.length === 0 ? (
        <p className="muted">None configured.</p>
      ) : (
        <table className="plain" aria-labelledby="mcp-servers">
          <thead>
            <tr>
              <th>Server</th>
              <th>State</th>
              <th>Skills</th>
              <th>Problems</th>
            </tr>
          </thead>
          <tbody>
            {servers.map((s) => (
              <tr key={s.name} data-server={s.name}>
                <td>
                  <strong>{s.name}</strong>
                  <div className="muted">
                    {s.transport}: <code>{s.target}</code>
                  </div>
                </td>
                <td>
                  <Chip tone={STATE_TONE[s.state] ?? 'bad'}>{s.state}</Chip>
                  {s.connectedAt && (
                    <div className="muted">
                      since <Time at={s.connectedAt} />
                    </div>
                  )}
                  {s.reason && <div className="error">{s.reason}</div>}
                  {s.retryAt && (
                    <div className="muted">
                      retries <Time at={s.retryAt} />
                    </div>
                  )}
                </td>
                <td>
                  <span className="chips">
                    {s.skills.map((k) => (
                      <Chip key={k}>{k}</Chip>
                    ))}
                    {s.skills.length === 0 && <span className="muted">none</span>}
                  </span>
                </td>
                <td>
                  <ProblemList problems={s.problems} label={`Problems of ${s.name}`} />
                  {s.stderr && (
                    <details>
                      <summary>Its last stderr lines</summary>
                      <pre className="json">{s.stderr}</pre>
                    </details>
                  )}
                  {s.problems.length === 0 && !s.stderr && <span className="muted">none</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}
