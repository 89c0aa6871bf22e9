import { useState, type FormEvent } from 'react'
import { useSessionState } from '../session/session'
import { toApiError } from '../api/use-api'

/** Why the identity provider's sign-in came back without a session (the server says so in `?signInError=`). */
const returnedError = () => new URLSearchParams(location.search).get('signInError')

/** Sign in with the organisation's identity provider when one is configured, or with an API key kept for this browser session only. */
export function SignInPage() {
  const { signIn, options } = useSessionState()
  const [key, setKey] = useState('')
  const [error, setError] = useState<string | null>(returnedError)
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
      {options?.oidc && (
        <p>
          <a className="button" href={options.oidc.signInUrl}>
            Sign in with {new URL(options.oidc.issuer).host}
          </a>
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" autoFocus required value={key} onChange={(e) => setKey(e.target.value)} />
        <p className="muted" data-testid="key-hint">
          Kept in this browser tab until you sign out or close it. <code>skillplane keys create</code> makes one.
        </p>
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
