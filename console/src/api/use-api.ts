import { useCallback, useEffect, useState } from 'react'
import { ApiError } from './client'

export interface Loaded<T> {
  data: T | undefined
  error: ApiError | undefined
  loading: boolean
  reload: () => void
}

/**
 * Load from the API when `deps` (strings and numbers) change; `reload` loads again. While a new load
 * runs, the last data stays on screen.
 */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [round, setRound] = useState(0)
  const key = JSON.stringify([...deps, round])
  const [state, setState] = useState<{ key?: string; data?: T; error?: ApiError }>({})
  useEffect(() => {
    let current = true
    load().then(
      (data) => current && setState({ key, data }),
      (error: unknown) => current && setState((s) => ({ key, data: s.data, error: toApiError(error) })),
    )
    return () => {
      current = false
    }
    // `load` closes over `deps`, which the key stands for.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  const reload = useCallback(() => setRound((r) => r + 1), [])
  return { data: state.data, error: state.key === key ? state.error : undefined, loading: state.key !== key, reload }
}

export const toApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, 'network', error instanceof Error ? error.message : String(error))
