import { useEffect, useState, type FormEvent } from 'react'
import { useSessionState } from '../session/session'
import { toApiError } from '../api/use-api'

interface SignInOptions {
  oidc: { issuer: string; signInUrl: string } | null
}

/** Why the identity provider's sign-in came back without a session (the server says so in `?signInError=`). */
const returnedError = () => new URLSearchParams(location.search).get('signInError')

/** Sign in with the organisation's identity provider when one is configured, or with an API key kept for this browser session only. */
export function SignInPage() {
  const { signIn } = useSessionState()
  const [key, setKey] = useState('')
  const [options, setOptions] = useState<SignInOptions | null>(null)
  const [error, setError] = useState<string | null>(returnedError)
  useEffect(() => {
    fetch('/auth/config')
      .then((response) => (response.ok ? (response.json() as Promise<SignInOptions>) : null))
      .then(setOptions, () => setOptions(null))
  }, [])
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
