import { useState, type FormEvent } from 'react'
import { useNavigate } from 'react-router'
import { api, unwrap, type ApiError } from '../api/client'
import { toApiError } from '../api/use-api'
import type { AgentView } from '../api/types'
import { ErrorNote } from '../components'
import { runPath } from '../paths'

/** Start a run without waiting for it, then follow it on its own page. */
export function StartRunForm({ agent }: { agent: AgentView }) {
  const navigate = useNavigate()
  const [prompt, setPrompt] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  const start = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const run = await unwrap(api.POST('/api/agents/{id}/runs', { params: { path: { id: agent.id } }, body: { prompt, wait: false } }))
      void navigate(runPath(run.id))
    } catch (failure) {
      setError(toApiError(failure))
      setBusy(false)
    }
  }
  return (
    <form className="card stack" onSubmit={start} aria-labelledby="start-run">
      <h2 id="start-run">Start a run</h2>
      <label>
        Prompt
        <textarea rows={4} value={prompt} required onChange={(e) => setPrompt(e.target.value)} placeholder={`What should ${agent.name} do?`} />
      </label>
      <div className="actions">
        <button type="submit" disabled={busy || !prompt.trim() || !agent.available}>
          {busy ? 'Starting…' : 'Start run'}
        </button>
        {!agent.available && <span className="muted">It can&apos;t run: {agent.unavailableReason}</span>}
      </div>
      <ErrorNote error={error} />
    </form>
  )
}
