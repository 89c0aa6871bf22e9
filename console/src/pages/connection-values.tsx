import { useState, type FormEvent } from 'react'
import { api, unwrap } from '../api/client'
import { allSkills } from '../api/all-skills'
import { toApiError, useApi } from '../api/use-api'
import type { SkillSummary } from '../api/types'
import type { ValueInfo } from '../api/types'
import { Chip, ErrorNote } from '../components'

interface Row {
  kind: 'secret' | 'setting'
  name: string
  stored: ValueInfo[]
  /** Skills that can't run for this admin until it is set. */
  waiting: string[]
}

/**
 * Secrets and settings by name (values never shown): who has one set, and which skills still wait
 * for it. A secret can be set here through a password field; it is never read back.
 */
export function ConnectionValues() {
  const loaded = useApi(async () => {
    const [secrets, settings, ...waiting] = await Promise.all([
      unwrap(api.GET('/api/secrets')).then((b) => b.secrets),
      unwrap(api.GET('/api/settings')).then((b) => b.settings),
      ...(['needs_auth', 'needs_input'] as const).map((connection) => allSkills({ connection })),
    ])
    return rows([...secrets, ...settings], waiting.flat())
  }, [])
  return (
    <>
      <h2 id="connection-values">Secrets and settings</h2>
      <ErrorNote error={loaded.error} />
      {loaded.data?.length === 0 && <p className="muted">No skill needs a secret or setting, and none is stored.</p>}
      {loaded.data && loaded.data.length > 0 && (
        <table className="plain" aria-labelledby="connection-values">
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>State</th>
              <th>Set for</th>
              <th>Skills waiting for it</th>
            </tr>
          </thead>
          <tbody>
            {loaded.data.map((row) => (
              <tr key={`${row.kind}:${row.name}`} data-value={row.name}>
                <td>
                  <code>{row.name}</code>
                </td>
                <td>{row.kind}</td>
                <td>
                  {row.waiting.length > 0 ? <Chip tone="warn">{row.kind === 'secret' ? 'needs auth' : 'needs input'}</Chip> : <Chip tone="good">set</Chip>}
                </td>
                <td>
                  <span className="chips">
                    {row.stored.map((v) => (
                      <Chip key={`${v.scope}:${v.subject}`} title={`version ${v.version}, set by ${v.updatedBy} at ${v.updatedAt}`}>
                        {v.scope === 'global' ? 'everyone' : `${v.scope} ${v.subject}`} · v{v.version}
                      </Chip>
                    ))}
                    {row.stored.length === 0 && <span className="muted">nobody</span>}
                  </span>
                </td>
                <td className="muted">{row.waiting.join(', ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <SetSecretForm onSaved={loaded.reload} suggestions={(loaded.data ?? []).filter((r) => r.kind === 'secret').map((r) => r.name)} />
    </>
  )
}

function rows(stored: ValueInfo[], waitingSkills: SkillSummary[]): Row[] {
  const byName = new Map<string, Row>()
  const row = (kind: Row['kind'], name: string) => {
    const id = `${kind}:${name}`
    if (!byName.has(id)) byName.set(id, { kind, name, stored: [], waiting: [] })
    return byName.get(id)!
  }
  for (const value of stored) row(value.kind, value.name).stored.push(value)
  for (const skill of waitingSkills) {
    for (const name of skill.connection?.missing?.secrets ?? []) row('secret', name).waiting.push(skill.key)
    for (const name of skill.connection?.missing?.settings ?? []) row('setting', name).waiting.push(skill.key)
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind))
}

/** Set a secret for everyone: the value goes in through a password field and is never shown again. */
function SetSecretForm({ onSaved, suggestions }: { onSaved: () => void; suggestions: string[] }) {
  const [name, setName] = useState('')
  const [value, setValue] = useState('')
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null)
  const save = async (event: FormEvent) => {
    event.preventDefault()
    setMessage(null)
    try {
      const saved = await unwrap(api.PUT('/api/secrets/{name}', { params: { path: { name: name.trim() } }, body: { value } }))
      setMessage({ error: false, text: `Saved ${saved.name} (version ${saved.version}).` })
      setValue('')
      onSaved()
    } catch (error) {
      setMessage({ error: true, text: toApiError(error).message })
    }
  }
  return (
    <form className="toolbar set-secret" aria-label="Set a secret" onSubmit={(e) => void save(e)}>
      <label>
        Secret name
        <input required list="secret-names" value={name} onChange={(e) => setName(e.target.value)} />
        <datalist id="secret-names">
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      </label>
      <label>
        Value (for everyone)
        <input required type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Set secret</button>
      {message && (
        <span className={message.error ? 'error' : 'muted'} role="status">
          {message.text}
        </span>
      )}
    </form>
  )
}
