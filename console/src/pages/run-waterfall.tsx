import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import { ErrorNote, Waterfall } from '../components'

/**
 * The run as a call tree on a time axis (GET /api/runs/{id}/tree): its model steps, its tool calls and the calls they
 * made, its approval waits. Read when shown, and again when `version` (the run's finished steps) moves on.
 */
export function RunWaterfall({ runId, version }: { runId: string; version: number }) {
  const tree = useApi(() => unwrap(api.GET('/api/runs/{id}/tree', { params: { path: { id: runId } } })), [runId, version])
  if (tree.error) return <ErrorNote error={tree.error} />
  if (!tree.data) return <p>Loading…</p>
  return <Waterfall tree={tree.data} />
}
