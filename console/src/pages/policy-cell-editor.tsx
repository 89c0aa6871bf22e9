import { useRef, useState } from 'react'
import { api, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'
import type { Decision, EffectiveCell, Policy, PolicySubject } from '../api/types'
import { DecisionChip } from '../components'

const DECISIONS: Decision[] = ['ALWAYS', 'ASK', 'DENY']

/** One cell up close: why it says what it says, and the override at exactly this (skill, subject) to set or clear. */
export function PolicyCellEditor({
  skill,
  subject,
  cell,
  policies,
  onChanged,
  onClose,
}: {
  skill: string
  subject: PolicySubject
  cell: EffectiveCell
  policies: Policy[]
  onChanged: () => void
  onClose: () => void
}) {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const box = useRef<HTMLDivElement>(null)
  // A subject's column edits the override at its own level; `self` has none (admins pick a role or user column).
  const target = subject.level === 'self' ? null : { level: subject.level, subject: subject.subject }
  const own = target && policies.find((p) => p.skill === skill && p.level === target.level && p.subject === target.subject)
  const run = async (change: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await change()
      onChanged()
      // The button pressed is now disabled or gone: keep the keyboard in the editor rather than on the page's body.
      box.current?.focus()
    } catch (e) {
      setError(toApiError(e).message)
    } finally {
      setBusy(false)
    }
  }
  const where = `${skill} for ${subject.label}`
  return (
    <div
      ref={box}
      tabIndex={-1}
      className="editor"
      role="group"
      aria-label={`Policy of ${where}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose()
      }}
    >
      <p>
        <strong>{skill}</strong> for <strong>{subject.label}</strong>: <DecisionChip value={cell.decision} />{' '}
        <span data-testid="cell-reason">{cell.reason}</span>
      </p>
      {cell.decision === 'ASK' && (
        <p className="muted">
          Needs {cell.requirement.approvals} approver{cell.requirement.approvals === 1 ? '' : 's'} ({cell.requirement.approverRole} or higher)
          {cell.requirement.sop && ', each citing a signed procedure'}.
        </p>
      )}
      {cell.refusal && <p className="error">Can&apos;t call it whatever the policy says: {cell.refusal}.</p>}
      {subject.note && <p className="muted">{subject.note}.</p>}
      {target && (
        <div className="actions">
          <span className="muted">
            Override for this {target.level === 'role' ? 'role' : target.level}
            {own ? (
              <>
                {' '}
                (now <DecisionChip value={own.decision} />, by {own.createdBy})
              </>
            ) : (
              ' (none)'
            )}
            :
          </span>
          {DECISIONS.map((decision) => (
            <button
              key={decision}
              type="button"
              disabled={busy || own?.decision === decision}
              aria-label={`Set ${decision} for ${where}`}
              onClick={() => void run(() => unwrap(api.PUT('/api/policies', { body: { skill, level: target.level, subject: target.subject, decision } })))}
            >
              {decision}
            </button>
          ))}
          {own && (
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => void run(() => unwrap(api.DELETE('/api/policies/{id}', { params: { path: { id: own.id } } })))}
            >
              Clear override
            </button>
          )}
          <button type="button" className="link" onClick={onClose}>
            Close
          </button>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
