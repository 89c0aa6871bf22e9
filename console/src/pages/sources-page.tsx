import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { ErrorNote } from '../components'
import { useSession } from '../session/session'
import { ConnectionValues } from './connection-values'
import { EdgesSection } from './edges-section'
import { ReloadSources } from './reload-sources'
import { SourceSection } from './source-section'

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
      {report && Object.entries(report).map(([kind, source]) => <SourceSection key={kind} kind={kind} source={source} />)}
    </>
  )
}
