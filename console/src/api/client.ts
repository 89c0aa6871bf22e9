import createClient from 'openapi-fetch'
import type { paths } from './schema'

const STORAGE = 'skillplane.key'

/** The API key lives in sessionStorage: it goes when the browser tab's session ends. */
export const storedKey = (): string | null => sessionStorage.getItem(STORAGE)
export function keepKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(STORAGE)
  else sessionStorage.setItem(STORAGE, key)
}

// Signed in with the identity provider, the browser sends the session cookie and every change carries this token (CSRF).
let csrfToken: string | null = null
export function keepCsrfToken(token: string | null): void {
  csrfToken = token
}
/** Whether the console is signed in through a session cookie rather than a key. */
export const signedInBySession = (): boolean => csrfToken !== null

/** The headers that authenticate a request: the key's, or the session's CSRF token for a change. */
export function authHeaders(method = 'GET'): Record<string, string> {
  const key = storedKey()
  if (key) return { authorization: `Bearer ${key}` }
  return csrfToken && !['GET', 'HEAD'].includes(method.toUpperCase()) ? { 'x-csrf-token': csrfToken } : {}
}

/** The server's failure, with its code and message (the API answers every failure the same way). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

let signedOut = (): void => {}
/** What to do when the key stops working (revoked mid-session): the session owner signs out. */
export const onUnauthorized = (handler: () => void): void => {
  signedOut = handler
}
/** A request the server refused for the key or session (revoked, say): sign out, as every API call does. */
export const keyRefused = (): void => {
  if (storedKey() || csrfToken) signedOut()
}

/** Every API call, typed from the server's OpenAPI document (console/build.mjs generates `schema`). */
export const api = createClient<paths>({ baseUrl: '' })
api.use({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authHeaders(request.method))) request.headers.set(name, value)
    return request
  },
  onResponse({ response }) {
    if (response.status === 401) keyRefused()
    return response
  },
})

interface Failure {
  error?: { code?: string; message?: string; details?: Record<string, unknown> }
}

/** The body of a success, typed by the route's declared answer, or an ApiError naming what the server said went wrong. */
export async function unwrap<D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await pending
  // openapi-fetch leaves `data` unset only for an error or an empty body, and every 2xx route declares a JSON body.
  if (response.ok) return data!
  const failure = (error ?? {}) as Failure
  throw new ApiError(
    response.status,
    failure.error?.code ?? 'http_' + response.status,
    failure.error?.message ?? `${response.status} ${response.statusText}`,
    failure.error?.details,
  )
}
