import { useState, type FormEvent } from 'react'
import { api, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'

/** Enroll an edge: its token is shown here once (the server keeps only its hash). */
export function EnrollEdgeForm({ onEnrolled }: { onEnrolled: () => void }) {
  const [name, setName] = useState('')
  const [labels, setLabels] = useState('')
  const [outcome, setOutcome] = useState<{ name?: string; token?: string; error?: string } | null>(null)
  const enroll = async (event: FormEvent) => {
    event.preventDefault()
    setOutcome(null)
    try {
      const parsed = parseLabels(labels)
      const { edge, token } = await unwrap(api.POST('/api/edges', { body: { name: name.trim(), labels: parsed } }))
      setOutcome({ name: edge.name, token })
      setName('')
      setLabels('')
      onEnrolled()
    } catch (error) {
      setOutcome({ error: error instanceof LabelError ? error.message : toApiError(error).message })
    }
  }
  return (
    <form className="toolbar enroll" aria-label="Enroll an edge" onSubmit={(e) => void enroll(e)}>
      <label>
        Edge name
        <input required value={name} placeholder="the host's name" onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Labels (key=value, comma-separated)
        <input value={labels} placeholder="env=prod, region=eu" onChange={(e) => setLabels(e.target.value)} />
      </label>
      <button type="submit">Enroll edge</button>
      <div role="status" className="enrolled">
        {outcome?.error && <p className="error">{outcome.error}</p>}
        {outcome?.token && (
          <p>
            Enrolled {outcome.name}. Its token, shown only now: <code data-testid="edge-token">{outcome.token}</code>. On the host, run{' '}
            <code>
              SKILLPLANE_EDGE_TOKEN=… skillplane edge --manager {window.location.origin} --name {outcome.name}
            </code>
            .
          </p>
        )}
      </div>
    </form>
  )
}

class LabelError extends Error {}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=')
    if (eq <= 0) throw new LabelError(`label "${part}" is not key=value`)
    labels[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  return labels
}
