import { useMemo, useState } from 'react'
import Form from '@rjsf/core'
import { customizeValidator } from '@rjsf/validator-ajv8'
import Ajv2020 from 'ajv/dist/2020'
import type { RJSFSchema } from '@rjsf/utils'
import { api, unwrap } from '../api/client'
import { useApi } from '../api/use-api'
import type { Envelope, ExecutableDetail } from '../api/types'
import { ConnectButton, JsonView, StatusChip } from '../components'
import { useSession } from '../session/session'
import { ApprovalLive } from './approval-live'
import { formButtons } from './form-buttons'

// Skill schemas are JSON Schema 2020-12 (zod's output); the form validates them as the server does.
const validator = customizeValidator({ AjvClass: Ajv2020 as never })

/** A form made from the skill's input schema; the result is the call's envelope. `onInvoked`: a call was answered. */
export function InvokeForm({ skill, onInvoked }: { skill: ExecutableDetail; onInvoked: () => void }) {
  const { abilities: can } = useSession()
  const schema = useMemo(() => {
    const { $schema: _ignored, ...rest } = skill.inputSchema
    return rest as RJSFSchema
  }, [skill.inputSchema])
  const [formData, setFormData] = useState<unknown>(undefined)
  const [edgeId, setEdgeId] = useState('')
  const [result, setResult] = useState<{ status: number; envelope: Envelope; input: unknown } | null>(null)
  const [busy, setBusy] = useState(false)
  const edges = useApi(async () => (skill.scope === 'host' && can.readEdges ? (await unwrap(api.GET('/api/edges'))).edges : []), [skill.key])
  const offering = (edges.data ?? []).filter((e) => !e.revokedAt && e.skills.some((s) => s.key === skill.key))
  // A host skill runs on one named edge: the first online one offering it, unless another is picked.
  const edge = edgeId || offering.find((e) => e.online)?.id || ''
  const invoke = async (input: unknown, approvalId?: string) => {
    setBusy(true)
    try {
      const { data, error, response } = await api.POST('/api/skills/{key}/invoke', {
        params: { path: { key: skill.key } },
        body: { input, ...(edge && { edgeId: edge }), ...(approvalId && { approvalId }) },
      })
      // Every answer of an invoke is the envelope: a success's body or a failure's.
      const envelope: Envelope | undefined = data ?? error
      setResult({
        status: response.status,
        envelope: envelope ?? { ok: false, error: { code: 'http_' + response.status, message: response.statusText } },
        input,
      })
    } catch (error) {
      setResult({ status: 0, envelope: { ok: false, error: { code: 'network', message: (error as Error).message } }, input })
    } finally {
      setBusy(false)
      onInvoked()
    }
  }
  const failure = result && !result.envelope.ok ? result.envelope.error : undefined
  const approvalId = failure?.code === 'approval_required' ? (failure.details?.approvalId as string | undefined) : undefined
  // A call refused for want of an OAuth connection: connect here, then invoke again.
  const oauth =
    failure?.code === 'needs_auth'
      ? (failure.details?.oauth as { provider: string; missingScopes: string[]; account?: 'person' | 'service' } | undefined)
      : undefined
  return (
    <div className="invoke">
      {skill.scope === 'host' && can.readEdges && (
        <label className="edge-picker">
          Edge
          <select value={edge} onChange={(e) => setEdgeId(e.target.value)}>
            {offering.length === 0 && <option value="">no edge offers it</option>}
            {offering.map((edge) => (
              <option key={edge.id} value={edge.id} disabled={!edge.online}>
                {edge.name}
                {edge.online ? '' : ' (offline)'}
              </option>
            ))}
          </select>
        </label>
      )}
      {/* Keys that can't list edges name one: a call without one is answered with the edges offering it. */}
      {skill.scope === 'host' && !can.readEdges && (
        <label className="edge-picker">
          Edge
          <input value={edgeId} placeholder="edge name" onChange={(e) => setEdgeId(e.target.value.trim())} />
        </label>
      )}
      <Form
        schema={schema}
        validator={validator}
        formData={formData}
        onChange={(e) => setFormData(e.formData)}
        onSubmit={(e) => void invoke(e.formData ?? {})}
        showErrorList={false}
        noHtml5Validate
        templates={{ ButtonTemplates: formButtons }}
        disabled={busy}
      >
        <button type="submit" disabled={busy}>
          {busy ? 'Running…' : 'Invoke'}
        </button>
      </Form>
      {result && (
        <div className="result" data-testid="invoke-result">
          <h3>
            Result <StatusChip value={result.envelope.ok ? 'ok' : result.envelope.error.code} /> <span className="muted">HTTP {result.status}</span>
          </h3>
          {oauth && (
            <p>
              Not connected to {oauth.provider} yet: <ConnectButton provider={oauth.provider} scopes={oauth.missingScopes} account={oauth.account} />
            </p>
          )}
          {approvalId ? (
            <ApprovalLive id={approvalId} onRun={() => void invoke(result.input, approvalId)} />
          ) : (
            <JsonView value={result.envelope} label="Envelope" />
          )}
        </div>
      )}
    </div>
  )
}
