import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, ApiError, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'
import type { AgentView, TestRunResult } from '../api/types'
import { Chip, ErrorNote } from '../components'
import { runPath } from '../paths'

const VERDICT_TONE = { pass: 'good', failed: 'bad', incomplete: 'bad', unconfirmed: 'warn' } as const

/** A test run: ask, optionally name the tool that should run, and see the verdict and the run it made. */
export function TestRunForm({ agent, onFinished }: { agent: AgentView; onFinished: () => void }) {
  const [input, setInput] = useState('')
  const [expectTool, setExpectTool] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  const [result, setResult] = useState<TestRunResult>()
  const test = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setResult(undefined)
    try {
      const body = await unwrap(
        api.POST('/api/agents/{id}/test-runs', { params: { path: { id: agent.id } }, body: { input, ...(expectTool && { expectTool }) } }),
      )
      // A policy that asks for approval of test_run answers 202 with the request instead of a verdict.
      if ('verdict' in body) {
        setResult(body)
        onFinished()
      } else setError(new ApiError(202, body.error.code, body.error.message))
    } catch (failure) {
      setError(toApiError(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form className="card stack" onSubmit={test} aria-labelledby="test-run">
      <h2 id="test-run">Test run</h2>
      <label>
        Input
        <textarea rows={3} value={input} required onChange={(e) => setInput(e.target.value)} />
      </label>
      <label>
        Expected tool (optional)
        <select value={expectTool} onChange={(e) => setExpectTool(e.target.value)}>
          <option value="">none</option>
          {agent.skills.map((key) => (
            <option key={key} value={key}>
              {key}
            </option>
          ))}
        </select>
      </label>
      <div className="actions">
        <button type="submit" disabled={busy || !input.trim() || !agent.available}>
          {busy ? 'Testing…' : 'Run test'}
        </button>
      </div>
      <ErrorNote error={error} />
      {result && (
        <div className="verdict" data-testid="verdict" role="status">
          <p className="chips">
            <Chip tone={VERDICT_TONE[result.verdict]}>{result.verdict}</Chip> {result.reason}
          </p>
          {result.tools.length > 0 && (
            <ul className="tools" aria-label="Tool calls">
              {result.tools.map((tool, i) => (
                <li key={i}>
                  <code>{tool.name}</code> {tool.called ? tool.ok ? <Chip tone="good">ok</Chip> : <Chip tone="bad">not ok</Chip> : <Chip>never called</Chip>}
                </li>
              ))}
            </ul>
          )}
          {result.output !== null && (
            <p className="output">
              <span className="muted">Output:</span> {result.output}
            </p>
          )}
          <p>
            <Link to={runPath(result.runId)}>The test run</Link> <code className="muted">{result.runId}</code>
          </p>
        </div>
      )}
    </form>
  )
}
