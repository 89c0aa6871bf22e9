import { useState, type FormEvent } from 'react'
import { useSessionState } from '../session/session'
import { toApiError } from '../api/use-api'

/** Sign in with an API key; it is kept for this browser session only. */
export function SignInPage() {
  const { signIn } = useSessionState()
  const [key, setKey] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await signIn(key.trim())
    } catch (failure) {
      const e = toApiError(failure)
      setError(e.status === 401 ? 'That key is unknown or revoked.' : e.message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main className="sign-in">
      <h1>skillplane</h1>
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" autoFocus required value={key} onChange={(e) => setKey(e.target.value)} />
        <p className="muted">Kept in this browser tab until you sign out or close it. `skillplane keys create` makes one.</p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || !key.trim()}>
          Sign in
        </button>
      </form>
    </main>
  )
}
