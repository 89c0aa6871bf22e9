import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { api, authHeaders, keepCsrfToken, keepKey, onUnauthorized, signedInBySession, storedKey, unwrap } from '../api/client'
import type { Caller } from '../api/types'

/**
 * What GET /api/me says the caller may do: every ability of the server's one table
 * (src/abilities/abilities.ts), true when it holds it. The console offers only those; the server
 * still decides every request.
 */
export type Abilities = Me['abilities']

export interface Session {
  caller: Caller
  abilities: Abilities
  signOut: () => void
}

/** GET /auth/config: the identity provider to offer, and whether the browser's cookie holds a live session. */
export interface SignInOptions {
  oidc: { issuer: string; signInUrl: string } | null
  session: boolean
}

interface SessionState {
  session: Session | null
  /** Still checking a key kept from earlier in this browser session, or a session cookie. */
  checking: boolean
  /** How the sign-in page may sign in (null until known, or when the server didn't say). */
  options: SignInOptions | null
  signIn: (key: string) => Promise<void>
}

const SessionContext = createContext<SessionState | null>(null)

// A session's answer carries its CSRF token; a key's doesn't.
const whoAmI = () =>
  unwrap(api.GET('/api/me')).then(({ caller, abilities, csrfToken }) => {
    keepCsrfToken(csrfToken ?? null)
    return { caller, abilities }
  })
type Me = Awaited<ReturnType<typeof whoAmI>>

/**
 * Who is signed in: the caller behind the API key kept in sessionStorage, or behind the session
 * cookie the identity provider's sign-in left (HttpOnly: only asking the server tells).
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null)
  const [checking, setChecking] = useState(true)
  const [options, setOptions] = useState<SignInOptions | null>(null)
  const signOut = useCallback(() => {
    if (signedInBySession()) void fetch('/auth/logout', { method: 'POST', headers: authHeaders('POST') })
    keepCsrfToken(null)
    keepKey(null)
    setMe(null)
  }, [])
  useEffect(() => {
    onUnauthorized(signOut)
    // Who we are is asked only with a key or a live session: a browser not signed in gets no 401 to log.
    const config = fetch('/auth/config')
      .then((response) => (response.ok ? (response.json() as Promise<SignInOptions>) : null))
      .catch(() => null)
    void config.then(setOptions)
    const signedIn = storedKey() !== null ? Promise.resolve(true) : config.then((found) => found?.session === true)
    signedIn
      .then((yes) => (yes ? whoAmI() : null))
      .then(setMe, () => {
        keepCsrfToken(null)
        keepKey(null)
      })
      .finally(() => setChecking(false))
  }, [signOut])
  const signIn = useCallback(async (key: string) => {
    keepKey(key)
    try {
      setMe(await whoAmI())
    } catch (error) {
      keepKey(null)
      throw error
    }
  }, [])
  const value = useMemo(() => ({ session: me && { ...me, signOut }, checking, options, signIn }), [me, checking, options, signIn, signOut])
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
