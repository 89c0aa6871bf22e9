import type { SourceEntry, SourceReport } from '../api/types'
import { Chip } from '../components'
import { FindingList } from './finding-list'
import { ProblemList } from './problem-list'

// A kind this table doesn't name is shown by its key: a new kind of source needs no console change.
const TITLES: Record<string, string> = {
  code: 'Code skills',
  'built-in': 'Built-in skills',
  pack: 'Skill packs',
  'agent-skill': 'Instruction skills',
  http: 'HTTP and OpenAPI',
  mcp: 'MCP servers',
  edge: 'Edge skills',
}

const STATE_TONE: Record<string, 'good' | 'warn' | 'bad' | 'info' | 'plain'> = {
  loaded: 'good',
  connected: 'good',
  online: 'good',
  connecting: 'info',
  needs_auth: 'warn',
  down: 'bad',
  failed: 'bad',
  revoked: 'bad',
}

/** One kind of source: each of its entries with its state, skills and problems, then its findings. */
export function SourceSection({ kind, source }: { kind: string; source: SourceReport }) {
  const title = TITLES[kind] ?? kind
  const id = `source-${kind}`
  return (
    <div data-kind={kind}>
      <h2 id={id}>{title}</h2>
      {source.entries.length === 0 ? (
        <p className="muted">None configured.</p>
      ) : (
        <table className="plain" aria-labelledby={id}>
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Skills</th>
              <th>Problems</th>
            </tr>
          </thead>
          <tbody>
            {source.entries.map((entry) => (
              <Entry key={entry.name} entry={entry} />
            ))}
          </tbody>
        </table>
      )}
      {source.findings.length > 0 && <FindingList findings={source.findings} label={`${title}: findings`} />}
    </div>
  )
}

function Entry({ entry }: { entry: SourceEntry }) {
  const details = Object.entries(entry.details).filter((pair): pair is [string, string] => pair[1] !== null)
  // What spans lines (an MCP server's stderr) folds away; the rest is one muted line each.
  const long = details.filter(([, value]) => value.includes('\n'))
  return (
    <tr data-entry={entry.name}>
      <td>
        <strong>{entry.name}</strong>
        {details
          .filter(([, value]) => !value.includes('\n'))
          .map(([key, value]) => (
            <div key={key} className="muted">
              {key}: <code>{value}</code>
            </div>
          ))}
      </td>
      <td>
        <Chip tone={STATE_TONE[entry.state] ?? 'plain'}>{entry.state}</Chip>
        {entry.reason && <div className="error">{entry.reason}</div>}
      </td>
      <td>
        <span className="chips" aria-label={`Skills of ${entry.name}`}>
          {entry.skills.map((k) => (
            <Chip key={k}>{k}</Chip>
          ))}
          {entry.skills.length === 0 && <span className="muted">none</span>}
        </span>
      </td>
      <td>
        <ProblemList problems={entry.problems} label={`Problems of ${entry.name}`} />
        {long.map(([key, value]) => (
          <details key={key}>
            <summary>{key}</summary>
            <pre className="json">{value}</pre>
          </details>
        ))}
        {entry.problems.length === 0 && long.length === 0 && <span className="muted">none</span>}
      </td>
    </tr>
  )
}
