import { useState, type FormEvent } from 'react'
import { api, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'
import type { Decision, Policy, PolicyLevel, PolicySubject } from '../api/types'
import { DecisionChip, Time } from '../components'

const LEVELS: PolicyLevel[] = ['global', 'role', 'agent', 'user', 'edge']

/**
 * Every stored override, with what the matrix has no column for: global ones, edge ones (by name or
 * label) and ones for every skill (`*`). Each can be cleared; new ones added at any level.
 */
export function PolicyOverrides({ policies, subjects, onChanged }: { policies: Policy[]; subjects: PolicySubject[]; onChanged: () => void }) {
  // Agent overrides store the agent's id: show its name, as the matrix does.
  const names = new Map(subjects.map((s) => [`${s.level}:${s.subject}`, s.label]))
  const [error, setError] = useState<string | null>(null)
  const [draft, setDraft] = useState<{ skill: string; level: PolicyLevel; subject: string; decision: Decision }>({
    skill: '*',
    level: 'global',
    subject: '',
    decision: 'ASK',
  })
  const run = async (change: () => Promise<unknown>) => {
    setError(null)
    try {
      await change()
      onChanged()
    } catch (e) {
      setError(toApiError(e).message)
    }
  }
  const add = (event: FormEvent) => {
    event.preventDefault()
    const { skill, level, subject, decision } = draft
    void run(() => unwrap(api.PUT('/api/policies', { body: { skill: skill.trim(), level, decision, ...(level !== 'global' && { subject: subject.trim() }) } })))
  }
  const sorted = [...policies].sort((a, b) => a.skill.localeCompare(b.skill) || a.level.localeCompare(b.level) || a.subject.localeCompare(b.subject))
  return (
    <>
      <h2 id="overrides">Overrides ({policies.length})</h2>
      {policies.length > 0 && (
        <table className="plain" aria-labelledby="overrides">
          <thead>
            <tr>
              <th>Skill</th>
              <th>Level</th>
              <th>Subject</th>
              <th>Decision</th>
              <th>Set by</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((p) => (
              <tr key={p.id} data-policy={p.id}>
                <td>
                  <code>{p.skill}</code>
                </td>
                <td>{p.level}</td>
                <td>{p.level === 'global' ? 'everyone' : p.level === 'agent' ? (names.get(`agent:${p.subject}`) ?? p.subject) : p.subject}</td>
                <td>
                  <DecisionChip value={p.decision} />
                </td>
                <td>
                  {p.createdBy}, <Time at={p.createdAt} />
                </td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Clear ${p.decision} for ${p.level} ${p.subject} on ${p.skill}`}
                    onClick={() => void run(() => unwrap(api.DELETE('/api/policies/{id}', { params: { path: { id: p.id } } })))}
                  >
                    Clear
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {policies.length === 0 && <p className="muted">No overrides: every cell is its class default.</p>}
      <form className="toolbar add-override" aria-label="Add an override" onSubmit={add}>
        <label>
          Skill (key or *)
          <input required value={draft.skill} onChange={(e) => setDraft({ ...draft, skill: e.target.value })} />
        </label>
        <label>
          Level
          <select value={draft.level} onChange={(e) => setDraft({ ...draft, level: e.target.value as PolicyLevel })}>
            {LEVELS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <label>
          Subject
          <input
            value={draft.level === 'global' ? '' : draft.subject}
            disabled={draft.level === 'global'}
            required={draft.level !== 'global'}
            placeholder={PLACEHOLDER[draft.level]}
            onChange={(e) => setDraft({ ...draft, subject: e.target.value })}
          />
        </label>
        <label>
          Decision
          <select value={draft.decision} onChange={(e) => setDraft({ ...draft, decision: e.target.value as Decision })}>
            <option>ALWAYS</option>
            <option>ASK</option>
            <option>DENY</option>
          </select>
        </label>
        <button type="submit">Add override</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  )
}

const PLACEHOLDER: Record<PolicyLevel, string> = {
  global: 'everyone',
  role: 'viewer, operator, admin or agent',
  agent: 'agent name or alias',
  user: 'key name',
  edge: 'edge name, or label=value',
}
