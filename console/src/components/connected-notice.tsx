import { useSearchParams } from 'react-router'

/**
 * The OAuth callback sends the browser back to the page that pressed Connect with `?connected=<provider>`
 * (and `missingScopes` when the provider granted only part): say so there, once.
 */
export function ConnectedNotice() {
  const [params, setParams] = useSearchParams()
  const provider = params.get('connected')
  if (!provider) return null
  const missing = params.get('missingScopes')
  const dismiss = () => {
    const next = new URLSearchParams(params)
    next.delete('connected')
    next.delete('missingScopes')
    setParams(next, { replace: true })
  }
  return (
    <p className={missing ? 'notice warn' : 'notice'} role="status" data-testid="connected-notice">
      Connected to <code>{provider}</code>.
      {missing && ` The provider did not grant every scope asked for: ${missing} is missing, so skills that need it still wait.`}{' '}
      <button type="button" className="link" onClick={dismiss}>
        Dismiss
      </button>
    </p>
  )
}
