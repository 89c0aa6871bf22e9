import { useId, useState, type FormEvent, type ReactNode } from 'react'
import { api, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'
import { isExecutable, type SkillDetail } from '../api/types'

type Editable = 'title' | 'description' | 'tags' | 'class'
const tagList = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)

/**
 * Admins edit the catalog side of a skill: only the fields they changed are sent, so saving one
 * field never pins the others to today's code text; an overridden field can go back to the code's.
 */
export function CatalogEdit({ skill, onSaved }: { skill: SkillDetail; onSaved: () => void }) {
  const [title, setTitle] = useState(skill.title)
  const [description, setDescription] = useState(skill.description)
  const [tags, setTags] = useState((skill.tags ?? []).join(', '))
  const [klass, setKlass] = useState(skill.class)
  const [enabled, setEnabled] = useState(skill.enabled ?? true)
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null)
  const patch = async (body: Record<string, unknown>, done: string) => {
    setMessage(null)
    try {
      await unwrap(api.PATCH('/api/skills/{key}', { params: { path: { key: skill.key } }, body }))
      setMessage({ error: false, text: done })
      onSaved()
    } catch (error) {
      setMessage({ error: true, text: toApiError(error).message })
    }
  }
  const changed = {
    ...(title !== skill.title && { title }),
    ...(description !== skill.description && { description }),
    ...(tagList(tags).join(',') !== (skill.tags ?? []).join(',') && { tags: tagList(tags) }),
    ...(klass !== skill.class && { class: klass }),
    ...(enabled !== (skill.enabled ?? true) && { enabled }),
  }
  const save = (event: FormEvent) => {
    event.preventDefault()
    void patch(changed, 'Saved.')
  }
  const reset = (field: Editable) =>
    skill.overrides[field] && (
      <button type="button" className="link" onClick={() => void patch({ [field]: null }, `${field} is the code's again.`)}>
        reset to the code&apos;s {field}
      </button>
    )
  return (
    <form className="catalog-edit" onSubmit={save} aria-labelledby="catalog-edit">
      <h2 id="catalog-edit">Catalog (admin)</h2>
      <Field label="Title" reset={reset('title')}>
        {(id) => <input id={id} value={title} onChange={(e) => setTitle(e.target.value)} />}
      </Field>
      <Field label="Description" reset={reset('description')}>
        {(id) => <textarea id={id} rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <Field label="Tags (comma-separated)" reset={reset('tags')}>
        {(id) => <input id={id} value={tags} onChange={(e) => setTags(e.target.value)} />}
      </Field>
      {/* An instruction skill is activated, not invoked: it has no class to raise. */}
      {isExecutable(skill) && (
        <Field label="Class (raise only)" reset={reset('class')}>
          {(id) => (
            <select id={id} value={klass} onChange={(e) => setKlass(e.target.value as typeof klass)}>
              <option>safe</option>
              <option>mutating</option>
              <option>dangerous</option>
            </select>
          )}
        </Field>
      )}
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
      </label>
      <button type="submit" disabled={Object.keys(changed).length === 0}>
        Save
      </button>
      {message && (
        <span className={message.error ? 'error' : 'muted'} role="status">
          {message.text}
        </span>
      )}
    </form>
  )
}

/** A labelled control with its reset button beside the label, not inside it (a label names the first control it holds). */
function Field({ label, reset, children }: { label: string; reset: ReactNode; children: (id: string) => ReactNode }) {
  const id = useId()
  return (
    <div className="field">
      <span className="field-head">
        <label htmlFor={id}>{label}</label> {reset}
      </span>
      {children(id)}
    </div>
  )
}
