import { useMemo, useState } from 'react'
import Form from '@rjsf/core'
import { customizeValidator } from '@rjsf/validator-ajv8'
import Ajv2020 from 'ajv/dist/2020'
import type { RJSFSchema } from '@rjsf/utils'
import { api } from '../api/client'
import type { RunStep, RunView } from '../api/types'
import { JsonView, StatusChip, Time } from '../components'
import { useSession } from '../session/session'
import { formButtons } from './form-buttons'

// Elicitation schemas are flat JSON Schema objects; the form checks them as the server does (which decides).
const validator = customizeValidator({ AjvClass: Ajv2020 as never, ajvOptionsOverrides: { strict: false } })

/** What an input step stores as its input: the request a tool call made of a person. */
interface Asked {
  inputId: string
  mode: 'form' | 'url'
  message: string
  requestedSchema: Record<string, unknown> | null
  url: string | null
  expiresAt: string
}

type Answer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' }

/**
 * One step where a tool call asks a person (an imported MCP server's elicitation): while it waits,
 * a form made from the requested schema (or the link to open, then done or cancel) for whoever may
 * answer (the person the run acts for, or an approver); after, the answer.
 */
export function RunInputCard({ run, step }: { run: Pick<RunView, 'id' | 'requester' | 'inputs'>; step: RunStep }) {
  const { caller, abilities: can } = useSession()
  const asked = step.input as Asked
  const status = step.status ?? 'awaiting_input'
  const waiting = status === 'awaiting_input'
  // As the server decides: the person the run acts for, or an approver of the role the request needs.
  const approverRole = run.inputs?.find((i) => i.id === asked.inputId)?.approverRole ?? 'operator'
  const mayAnswer = caller.kind === 'user' && (caller.id === run.requester.id || (approverRole === 'admin' ? can.decideAdminApprovals : can.decideApprovals))
  const n = step.index + 1
  return (
    <article className="step card input-step" id={`step-${step.index}`} data-step={step.index} data-kind="input" data-status={status}>
      <header>
        <h3>
          Step {n} · input asked by <code>{step.tool}</code>
        </h3>
        <StatusChip value={status} />
      </header>
      <p className="said">{asked.message}</p>
      {waiting ? (
        mayAnswer ? (
          <InputAnswer runId={run.id} asked={asked} />
        ) : (
          <p className="muted">
            Waiting for {run.requester.name} or an approver ({approverRole === 'admin' ? 'admin' : 'operator or admin'}) to answer.
          </p>
        )
      ) : (
        <>
          {step.error && <p className="error">{step.error}</p>}
          {step.output !== undefined && <JsonView value={step.output} label={`Answer of step ${n}`} />}
        </>
      )}
      {waiting && (
        <p className="muted">
          Unanswered, it is cancelled at <Time at={asked.expiresAt} />.
        </p>
      )}
    </article>
  )
}

function InputAnswer({ runId, asked }: { runId: string; asked: Asked }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [formData, setFormData] = useState<unknown>(undefined)
  const schema = useMemo(() => {
    const { $schema: _ignored, ...rest } = asked.requestedSchema ?? { type: 'object' }
    return rest as RJSFSchema
  }, [asked.requestedSchema])
  const uiSchema = useMemo(() => passwordFields(schema), [schema])
  const send = async (answer: Answer) => {
    setBusy(true)
    setError(null)
    try {
      const { error: failed } = await api.POST('/api/runs/{id}/inputs/{inputId}', { params: { path: { id: runId, inputId: asked.inputId } }, body: answer })
      // The step changes once the call hears the answer; the page follows it.
      if (failed) setError(failed.error.message)
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  const refuse = (
    <>
      <button type="button" disabled={busy} onClick={() => void send({ action: 'decline' })}>
        Decline
      </button>
      <button type="button" disabled={busy} onClick={() => void send({ action: 'cancel' })}>
        Cancel
      </button>
    </>
  )
  // Only a web link is offered to follow: anything else was refused by the server before it got here.
  const link = asked.url && /^https?:\/\//i.test(asked.url) ? asked.url : null
  return (
    <div className="input-answer" data-testid="input-answer">
      {asked.mode === 'url' ? (
        <>
          <p>
            {link ? (
              <a href={link} target="_blank" rel="noopener noreferrer">
                {link}
              </a>
            ) : (
              <span className="error">no web link to open</span>
            )}
          </p>
          <p className="form-buttons">
            <button type="button" disabled={busy} onClick={() => void send({ action: 'accept' })}>
              Done
            </button>
            <button type="button" disabled={busy} onClick={() => void send({ action: 'cancel' })}>
              Cancel
            </button>
          </p>
        </>
      ) : (
        <Form
          schema={schema}
          validator={validator}
          formData={formData}
          uiSchema={uiSchema}
          onChange={(e) => setFormData(e.formData)}
          onSubmit={(e) => void send({ action: 'accept', content: (e.formData ?? {}) as Record<string, unknown> })}
          showErrorList={false}
          noHtml5Validate
          templates={{ ButtonTemplates: formButtons }}
          disabled={busy}
        >
          <p className="form-buttons">
            <button type="submit" disabled={busy}>
              Accept
            </button>
            {refuse}
          </p>
        </Form>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}

/** The form's password inputs: the string fields the server marked `writeOnly` (kept and shown redacted). */
function passwordFields(schema: RJSFSchema): Record<string, { 'ui:widget': 'password' }> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, field]) => typeof field === 'object' && field !== null && field.type === 'string' && field.writeOnly === true)
      .map(([name]) => [name, { 'ui:widget': 'password' as const }]),
  )
}
