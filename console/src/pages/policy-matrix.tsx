import { Fragment, useState } from 'react'
import { Link } from 'react-router'
import type { EffectiveCell, EffectiveMatrix, Policy, PolicySubject } from '../api/types'
import { ClassChip, DecisionChip } from '../components'
import { PolicyCellEditor } from './policy-cell-editor'
import { skillPath } from '../paths'

/** Where a cell's decision came from, in a word under it. */
const origin = (cell: EffectiveCell) => (cell.refusal ? 'no access' : cell.policyId ? 'override' : 'default')

/** Why a subject has no access, short enough for the cell (its title has the server's sentence). */
const WHY_NO_ACCESS: Record<NonNullable<EffectiveCell['refusalCause']>, string> = {
  disabled: 'skill disabled',
  not_shared: 'not shared',
  not_bound: 'not bound',
  role: 'role too low',
}

/** The matrix table: one button per cell; the selected cell's editor opens in a row under its skill. */
export function PolicyMatrix({ matrix, policies, onChanged }: { matrix: EffectiveMatrix; policies: Policy[]; onChanged: () => void }) {
  const [open, setOpen] = useState<{ skill: string; subject: string } | null>(null)
  const { subjects } = matrix
  // Closing the editor hands the keyboard back to the cell it was opened from.
  const close = () => {
    const cell = open && document.querySelector<HTMLButtonElement>(`button[data-cell="${CSS.escape(`${open.skill} ${open.subject}`)}"]`)
    setOpen(null)
    cell?.focus()
  }
  return (
    <div className="matrix-scroll">
      <table className="plain matrix" aria-label="Policy matrix">
        <thead>
          <tr>
            <th scope="col">Skill</th>
            {subjects.map((s) => (
              <th key={s.id} scope="col" title={s.note ?? undefined}>
                {s.label}
                <span className="muted level">{s.level === 'user' ? 'user' : s.level === 'agent' ? 'agent' : 'role'}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {matrix.skills.map((skill) => {
            const editing = open?.skill === skill.key ? subjects.find((s) => s.id === open.subject) : undefined
            const editingCell = editing && skill.cells.find((c) => c.subject === editing.id)
            return (
              <Fragment key={skill.key}>
                <tr data-skill={skill.key}>
                  <th scope="row">
                    <Link to={skillPath(skill.key)}>{skill.key}</Link> <ClassChip value={skill.class} />
                    {skill.scope === 'host' && <span className="muted"> host</span>}
                  </th>
                  {skill.cells.map((cell, i) => {
                    const subject = subjects[i]!
                    const selected = editing?.id === subject.id
                    return (
                      <td key={cell.subject}>
                        <button
                          type="button"
                          className={`cell${cell.refusal ? ' refused' : ''}${selected ? ' selected' : ''}`}
                          aria-label={cellLabel(skill.key, subject, cell)}
                          aria-expanded={selected}
                          title={cell.refusal ? `${cell.reason}; can't call: ${cell.refusal}` : cell.reason}
                          data-cell={`${skill.key} ${subject.id}`}
                          data-decision={cell.decision}
                          data-origin={origin(cell)}
                          onClick={() => setOpen(selected ? null : { skill: skill.key, subject: subject.id })}
                        >
                          <DecisionChip value={cell.decision} />
                          <span className="origin">{origin(cell)}</span>
                          {cell.refusalCause && (
                            <span className="why" data-testid="no-access-why">
                              {WHY_NO_ACCESS[cell.refusalCause]}
                            </span>
                          )}
                        </button>
                      </td>
                    )
                  })}
                </tr>
                {editing && editingCell && (
                  <tr className="cell-editor">
                    <td colSpan={subjects.length + 1}>
                      <PolicyCellEditor skill={skill.key} subject={editing} cell={editingCell} policies={policies} onChanged={onChanged} onClose={close} />
                    </td>
                  </tr>
                )}
              </Fragment>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

const cellLabel = (skill: string, subject: PolicySubject, cell: EffectiveCell) =>
  `${skill} for ${subject.label}: ${cell.decision}, ${origin(cell)}${cell.refusal ? ` (${cell.refusal})` : ''}`
