import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { Chip, ErrorNote } from '../components'
import { useSession } from '../session/session'
import { ConnectionValues } from './connection-values'
import { EdgesSection } from './edges-section'
import { FindingList } from './finding-list'
import { McpServers } from './mcp-servers'
import { ProblemList } from './problem-list'
import { ReloadSources } from './reload-sources'

/** Where skills come from: admins see every source and the secrets and settings; operators the edges only. */
export function SourcesPage() {
  const { abilities: can } = useSession()
  return (
    <section>
      <h1>Sources</h1>
      {can.manageSources ? <Sources /> : <p className="muted">Your key sees the edges; the other sources, secrets and settings are for admins.</p>}
      <EdgesSection />
      {can.manageConnections && <ConnectionValues />}
    </section>
  )
}

function Sources() {
  const sources = useApi(() => unwrap(api.GET('/api/sources')), [])
  const report = sources.data
  return (
    <>
      <ReloadSources onReloaded={sources.reload} />
      <ErrorNote error={sources.error} />
      {report && (
        <>
          <McpServers servers={report.mcp} />
          <h2>Skill packs</h2>
          <Folders dirs={report.packs.dirs} skills={report.packs.skills} label="Packs" />
          <FindingList findings={report.packs.findings} label="Pack findings" />
          <h2>Instruction skills</h2>
          <Folders dirs={report.instructions.dirs} skills={report.instructions.skills} label="Instruction skills" />
          <FindingList findings={report.instructions.findings} label="Instruction-skill findings" />
          {(report.http.skills.length > 0 || report.http.problems.length > 0 || report.openapi.length > 0) && (
            <>
              <h2>HTTP and OpenAPI</h2>
              {report.http.skills.length > 0 && <Folders dirs={[]} skills={report.http.skills} label="HTTP skills" />}
              <ProblemList problems={report.http.problems} />
              {report.openapi.map((source) => (
                <div key={source.name} className="card source">
                  <h3>
                    {source.name} <Chip tone={source.state === 'loaded' ? 'good' : 'bad'}>{source.state}</Chip>
                  </h3>
                  <p className="muted">
                    {source.spec} → {source.baseUrl ?? 'no base URL'}
                  </p>
                  <Folders dirs={[]} skills={source.skills} label={`Skills of ${source.name}`} />
                  <ProblemList problems={source.problems} />
                </div>
              ))}
            </>
          )}
        </>
      )}
    </>
  )
}

function Folders({ dirs, skills, label }: { dirs: string[]; skills: string[]; label: string }) {
  return (
    <>
      {dirs.length > 0 && (
        <p className="muted">
          From{' '}
          {dirs.map((d, i) => (
            <code key={i}>{d}</code>
          ))}
        </p>
      )}
      {dirs.length === 0 && skills.length === 0 ? (
        <p className="muted">None configured.</p>
      ) : (
        <p className="chips" aria-label={label}>
          {skills.length === 0 && <span className="muted">No skills loaded.</span>}
          {skills.map((s) => (
            <Chip key={s}>{s}</Chip>
          ))}
        </p>
      )}
    </>
  )
}
