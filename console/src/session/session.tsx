import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { api, authHeaders, keepCsrfToken, keepKey, onUnauthorized, signedInBySession, unwrap } from '../api/client'
import type { Caller } from '../api/types'

export interface Session {
  caller: Caller
  signOut: () => void
}

interface SessionState {
  session: Session | null
  /** Still checking a key kept from earlier in this browser session. */
  checking: boolean
  signIn: (key: string) => Promise<void>
}

const SessionContext = createContext<SessionState | null>(null)

// A session's answer carries its CSRF token; a key's doesn't.
const whoAmI = () =>
  unwrap<{ caller: Caller; csrfToken?: string }>(api.GET('/api/me')).then((body) => {
    keepCsrfToken(body.csrfToken ?? null)
    return body.caller
  })

/**
 * Who is signed in: the caller behind the API key kept in sessionStorage, or behind the session
 * cookie the identity provider's sign-in left (HttpOnly: only asking the server tells).
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [caller, setCaller] = useState<Caller | null>(null)
  const [checking, setChecking] = useState(true)
  const signOut = useCallback(() => {
    if (signedInBySession()) void fetch('/auth/logout', { method: 'POST', headers: authHeaders('POST') })
    keepCsrfToken(null)
    keepKey(null)
    setCaller(null)
  }, [])
  useEffect(() => {
    onUnauthorized(signOut)
    whoAmI()
      .then(setCaller, () => {
        keepCsrfToken(null)
        keepKey(null)
      })
      .finally(() => setChecking(false))
  }, [signOut])
  const signIn = useCallback(async (key: string) => {
    keepKey(key)
    try {
      setCaller(await whoAmI())
    } catch (error) {
      keepKey(null)
      throw error
    }
  }, [])
  const value = useMemo(() => ({ session: caller && { caller, signOut }, checking, signIn }), [caller, checking, signIn, signOut])
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext)
  if (!state) throw new Error('useSessionState outside SessionProvider')
  return state
}

/** The signed-in session; pages render only inside one. */
export function useSession(): Session {
  const { session } = useSessionState()
  if (!session) throw new Error('useSession without a signed-in caller')
  return session
}
