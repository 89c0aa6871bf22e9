import { useState, type FormEvent } from 'react'
import { api, unwrap } from '../api/client'
import { toApiError } from '../api/use-api'
import type { SkillDetail } from '../api/types'
import { Chip } from '../components'

type Visibility = 'all' | 'agents' | 'users'
const names = (text: string) =>
  text
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)

/** Who may see a skill; admins change it (PUT /api/skills/{key}/sharing), everyone else reads it. */
export function SkillSharing({ skill, admin, onSaved }: { skill: SkillDetail; admin: boolean; onSaved: () => void }) {
  const sharing = skill.sharing ?? { visibility: 'all' as const }
  const [visibility, setVisibility] = useState<Visibility>(sharing.visibility)
  const [list, setList] = useState((sharing.agents ?? sharing.users ?? []).join(', '))
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null)
  const save = async (event: FormEvent) => {
    event.preventDefault()
    setMessage(null)
    const body = visibility === 'all' ? { visibility } : visibility === 'agents' ? { visibility, agents: names(list) } : { visibility, users: names(list) }
    try {
      await unwrap(api.PUT('/api/skills/{key}/sharing', { params: { path: { key: skill.key } }, body }))
      setMessage({ error: false, text: 'Saved.' })
      onSaved()
    } catch (error) {
      setMessage({ error: true, text: toApiError(error).message })
    }
  }
  const shown =
    sharing.visibility === 'all'
      ? 'everyone who may use it'
      : `${sharing.visibility === 'agents' ? 'agents' : 'users'} ${(sharing.agents ?? sharing.users ?? []).join(', ') || '(named)'}`
  return (
    <>
      <h2 id="sharing">Sharing</h2>
      <p>
        Visible to <Chip tone={sharing.visibility === 'all' ? 'plain' : 'info'}>{shown}</Chip> <span className="muted">(admins always see it)</span>
      </p>
      {admin && (
        <form className="catalog-edit" onSubmit={save} aria-labelledby="sharing">
          <fieldset className="scope">
            <legend>Share with</legend>
            {(['all', 'agents', 'users'] as const).map((v) => (
              <label className="inline" key={v}>
                <input type="radio" name="visibility" checked={visibility === v} onChange={() => setVisibility(v)} />{' '}
                {v === 'all' ? 'everyone' : v === 'agents' ? 'these agents' : 'these users (key names)'}
              </label>
            ))}
          </fieldset>
          {visibility !== 'all' && (
            <label>
              {visibility === 'agents' ? 'Agents (comma-separated)' : 'Users (comma-separated)'}
              <input value={list} onChange={(e) => setList(e.target.value)} />
            </label>
          )}
          <button type="submit">Save sharing</button>
          {message && (
            <span className={message.error ? 'error' : 'muted'} role="status">
              {message.text}
            </span>
          )}
        </form>
      )}
    </>
  )
}
