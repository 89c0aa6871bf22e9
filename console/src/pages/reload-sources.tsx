import { useState } from 'react'
import { api, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'
import type { ReloadReport } from '../api/types'

/** Reload packs and OpenAPI documents, reconnect MCP servers that are down, sync: then say what changed. */
export function ReloadSources({ onReloaded }: { onReloaded: () => void }) {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<{ report?: ReloadReport; error?: string } | null>(null)
  const reload = async () => {
    setBusy(true)
    setOutcome(null)
    try {
      setOutcome({ report: await unwrap(api.POST('/api/sources/reload')) })
      onReloaded()
    } catch (error) {
      setOutcome({ error: toApiError(error).message })
    } finally {
      setBusy(false)
    }
  }
  const report = outcome?.report
  return (
    <div className="reload">
      <button type="button" disabled={busy} onClick={() => void reload()}>
        {busy ? 'Reloading…' : 'Reload sources'}
      </button>
      <div role="status" data-testid="reload-outcome">
        {outcome?.error && <p className="error">{outcome.error}</p>}
        {report && (
          <p>
            {changes(report)}
            {report.findings.length > 0 && ` ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} below.`}
          </p>
        )}
      </div>
    </div>
  )
}

function changes(report: ReloadReport): string {
  const parts = [
    report.added.length > 0 && `added ${report.added.join(', ')}`,
    report.removed.length > 0 && `removed ${report.removed.join(', ')}`,
    report.sync.changes.length > 0 && `${report.sync.changes.length} catalog change${report.sync.changes.length === 1 ? '' : 's'}`,
  ].filter(Boolean)
  const servers = report.mcp.map((s) => `${s.name} ${s.state}`).join(', ')
  return `Reloaded: ${parts.length > 0 ? parts.join('; ') : 'no skill added or removed'}.${servers ? ` MCP: ${servers}.` : ''}`
}
