import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { api, keepKey, onUnauthorized, storedKey, unwrap } from '../api/client'
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

const whoAmI = () => unwrap<{ caller: Caller }>(api.GET('/api/me')).then((body) => body.caller)

/** Who is signed in: the caller behind the API key kept in sessionStorage. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [caller, setCaller] = useState<Caller | null>(null)
  const [checking, setChecking] = useState(() => storedKey() !== null)
  const signOut = useCallback(() => {
    keepKey(null)
    setCaller(null)
  }, [])
  useEffect(() => {
    onUnauthorized(signOut)
    if (!storedKey()) return
    whoAmI()
      .then(setCaller, signOut)
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
