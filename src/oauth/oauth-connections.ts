import { createHash, randomBytes } from 'node:crypto'
import { sealedBinding, type OAuthConnectionMeta, type OAuthConnectionRow, type OAuthRepository } from '../store/index.js'
import type { Actor, AuditEvents } from '../audit/index.js'
import type { SecretsKey } from '../connections/index.js'
import type { OAuthFlow } from './oauth-flow.js'
import type { TokenSet } from './token-set.js'
import { NeedsConnectionError, OAuthCallbackError, OAuthRefusedError, OAuthUnavailableError } from './oauth-errors.js'

// Refreshed this long before the access token expires, so a call never starts with one about to lapse.
const REFRESH_AHEAD_MS = 60_000
// How long one manager may hold a refresh before another may take it over (a manager that died mid-refresh).
const REFRESH_HOLD_MS = 30_000
const LINK_BINDING = 'skillplane oauth link'
/** A caller's abort signal, as little of one as waiting needs (an AbortSignal is one). */
interface Stop {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

// Another manager held the refresh: read the connection again.
const WAIT = Symbol('wait')
const SERVED_URL = 'http_served_url'
export const CALLBACK_PATH = '/oauth/callback'
export const START_PATH = '/oauth/start'

export interface OAuthConnectionsDeps {
  repo: OAuthRepository
  /** The secrets key, current after a rotation. */
  key: () => SecretsKey
  events: AuditEvents
  now: () => Date
  linkTtlMs: number
  /** `http.publicUrl`: the origin people's browsers reach this server at; else the address it listens on (`serveAt`). */
  publicUrl: string | undefined
  /** Where the address a server of this database last listened at is kept (the CLI links to it). */
  settings: { get(key: string): Promise<string | undefined>; change(key: string, value: string): Promise<unknown> }
  /** With a console sign-in (auth.oidc): links and callbacks work only in a browser signed in as their person. */
  signInRequired: boolean
  /** Whether a person may still use their connections (not disabled). */
  isActive: (user: string) => Promise<boolean>
  warn: (message: string) => void
}

/** A connection as listings show it, never its tokens. */
export interface ConnectionInfo {
  provider: string
  title: string
  account: 'person' | 'service'
  subject: string | null
  state: 'ready' | 'needs_auth'
  scopes: string[]
  missingScopes: string[]
  expiresAt: string | null
  connectedAt: string
  connectedBy: string
  updatedAt: string
  reason: string | null
}

/** A connect link's contents: sealed, so it can't be forged or read. */
interface Link {
  p: string
  s: string
  sc: string[]
  r: string
  e: number
  by: string
}

/**
 * People's (and the service account's) OAuth connections: the links that start a flow, the
 * callback that finishes it, tokens sealed in the database and refreshed before they expire (once
 * across every manager sharing it), and which connections exist (kept in memory, like secrets).
 */
export class OAuthConnections {
  readonly #deps: OAuthConnectionsDeps
  readonly #flows = new Map<string, OAuthFlow>()
  #present = new Map<string, OAuthConnectionMeta>()
  readonly #listeners = new Set<(provider: string, subject: string) => void>()
  readonly #refreshing = new Map<string, Promise<TokenSet | typeof WAIT>>()
  #listenUrl: (() => string) | undefined
  #lastServed: string | undefined

  constructor(deps: OAuthConnectionsDeps) {
    this.#deps = deps
  }

  /** The address the HTTP server listens on: links and the callback use it when `http.publicUrl` is not set. */
  serveAt(origin: () => string): void {
    this.#listenUrl = origin
  }

  /** Record where this server listens, for links made by processes that serve nothing (a CLI `invoke`). */
  async served(origin: string): Promise<void> {
    await this.#deps.settings.change(SERVED_URL, origin)
  }

  #baseUrl(): string | undefined {
    return this.#deps.publicUrl ?? (this.#listenUrl?.() || this.#lastServed)
  }

  register(flow: OAuthFlow): void {
    if (this.#flows.has(flow.name)) throw new Error(`OAuth provider ${flow.name} is registered twice`)
    this.#flows.set(flow.name, flow)
  }

  has(provider: string): boolean {
    return this.#flows.has(provider)
  }

  providers(): Array<{ name: string; title: string; defaultScopes: string[] }> {
    return [...this.#flows.values()].map((f) => ({ name: f.name, title: f.title, defaultScopes: [...f.defaultScopes] }))
  }

  /** Called when a connection becomes ready, here or (seen at the next refresh) at another manager. */
  onConnected(listener: (provider: string, subject: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Reload which connections exist (other managers change them); tells listeners of ones that became ready. */
  async refresh(): Promise<void> {
    const [rows, served] = await Promise.all([this.#deps.repo.list(), this.#deps.settings.get(SERVED_URL)])
    this.#lastServed = served
    const next = new Map(rows.map((row) => [presenceKey(row.provider, row.subject), row]))
    const previous = this.#present
    this.#present = next
    for (const [key, row] of next) {
      const before = previous.get(key)
      if (row.status === 'ready' && (before === undefined || before.status !== 'ready' || before.connected_at !== row.connected_at))
        this.#emit(row.provider, row.subject)
    }
  }

  /** The scopes a skill asks for: its own, else the provider's defaults. */
  scopesFor(provider: string, scopes: readonly string[]): string[] {
    return scopes.length > 0 ? [...scopes] : [...(this.#flows.get(provider)?.defaultScopes ?? [])]
  }

  /** Whether `subject` ('' for the service account) has a usable connection with these scopes, from memory. */
  state(provider: string, subject: string, scopes: readonly string[]): { state: 'ready' | 'needs_auth'; missingScopes: string[] } {
    const wanted = this.scopesFor(provider, scopes)
    const row = this.#present.get(presenceKey(provider, subject))
    if (!row || row.status !== 'ready') return { state: 'needs_auth', missingScopes: wanted }
    const missingScopes = missing(wanted, row.scopes)
    return { state: missingScopes.length > 0 ? 'needs_auth' : 'ready', missingScopes }
  }

  /**
   * The skillplane link that starts the flow for `subject` and `provider`: sealed (nobody can forge or
   * alter it), valid for `oauth.linkTtlMs`. It asks for the scopes the connection has plus `scopes`.
   */
  authorizationUrl(provider: string, subject: string, scopes: readonly string[], options: { returnTo?: string; by?: string } = {}): string {
    if (!this.#flows.has(provider)) throw new OAuthCallbackError(`no OAuth provider named ${JSON.stringify(provider)}`)
    const granted = this.#present.get(presenceKey(provider, subject))?.scopes ?? ''
    const link: Link = {
      p: provider,
      s: subject,
      sc: [...new Set([...split(granted), ...this.scopesFor(provider, scopes)])],
      r: consolePath(options.returnTo),
      e: this.#deps.now().getTime() + this.#deps.linkTtlMs,
      by: options.by ?? subject,
    }
    // The sealed text's base64 as base64url: nothing in it needs escaping in a URL.
    const [format, body] = this.#deps.key().seal(JSON.stringify(link), LINK_BINDING).split(':') as [string, string]
    const sealed = `${format}.${Buffer.from(body, 'base64').toString('base64url')}`
    return `${this.#baseUrl() ?? ''}${START_PATH}?link=${sealed}`
  }

  /**
   * Open a connect link in `browserUser`'s browser (null when not signed in to the console): the
   * flow is stored under a fresh state, taken once by the callback. Returns where to send the browser.
   */
  async begin(linkParam: string | undefined, browserUser: string | null): Promise<{ url: URL; cookie: { name: string; value: string } }> {
    const link = this.#openLink(linkParam)
    this.#checkBrowser(link.s, link.by, browserUser, 'this link')
    const flow = this.#flow(link.p)
    const state = randomBytes(32).toString('base64url')
    const started = await flow.begin({ state, scopes: link.sc, redirectUri: this.#redirectUri() })
    const now = this.#deps.now()
    const stateHash = hash(state)
    // The flow is finished only in the browser that started it: a provider URL passed to someone else connects nobody.
    const browser = randomBytes(32).toString('base64url')
    const sealed: SealedChecks = { flow: started.checks, browser: hash(browser) }
    await this.#deps.repo.startFlow({
      state_hash: stateHash,
      provider: link.p,
      subject: link.s,
      scopes: link.sc.join(' '),
      checks: this.#deps.key().seal(JSON.stringify(sealed), `oauth-state:${stateHash}`),
      return_to: link.r,
      created_by: link.by,
      created_at: now.toISOString(),
      expires_at: new Date(Math.min(now.getTime() + this.#deps.linkTtlMs, link.e + this.#deps.linkTtlMs)).toISOString(),
    })
    return { url: started.url, cookie: { name: flowCookie(stateHash), value: browser } }
  }

  /**
   * The provider sent the browser back: take the flow once, redeem the code, store the tokens sealed
   * and audit `connection.connected`. Returns where to send the browser.
   */
  async complete(
    query: URLSearchParams,
    browserUser: string | null,
    cookie: (name: string) => string | undefined,
  ): Promise<{ provider: string; subject: string; returnTo: string; missingScopes: string[] }> {
    const state = query.get('state')
    if (!state) throw new OAuthCallbackError('the callback carries no state: start again from a connect link')
    const now = this.#deps.now()
    const stateHash = hash(state)
    const flowRow = await this.#deps.repo.takeFlow(stateHash, now.toISOString())
    if (!flowRow) throw new OAuthCallbackError('this connection attempt is unknown, already used or expired: start again from a connect link')
    this.#checkBrowser(flowRow.subject, flowRow.created_by, browserUser, 'this connection attempt')
    const opened = this.#deps.key().open(flowRow.checks, `oauth-state:${stateHash}`)
    if (opened === null) throw new OAuthCallbackError('this connection attempt can no longer be read (the secrets key changed): start again')
    const sealed = JSON.parse(opened) as SealedChecks
    const browser = cookie(flowCookie(stateHash))
    if (browser === undefined || hash(browser) !== sealed.browser) {
      throw new OAuthCallbackError(
        'this connection attempt was started in another browser (or its cookie is gone): nothing was connected; open the connect link again in this browser',
      )
    }
    const flow = this.#flow(flowRow.provider)
    const asked = split(flowRow.scopes)
    const callbackUrl = new URL(`${this.#redirectUri()}?${query.toString()}`)
    let tokens: TokenSet
    try {
      tokens = await flow.complete({
        callbackUrl,
        state,
        scopes: asked,
        checks: sealed.flow,
        redirectUri: this.#redirectUri(),
      })
    } catch (error) {
      // The provider could not be reached, so its code was not redeemed: the same callback may be tried again.
      if (error instanceof OAuthUnavailableError) await this.#deps.repo.startFlow(flowRow)
      throw error
    }
    const at = now.toISOString()
    const actor = flowRow.subject === '' ? { id: flowRow.created_by, name: flowRow.created_by } : { id: flowRow.subject, name: flowRow.subject }
    const missingScopes = missing(asked, tokens.scopes.join(' '))
    await this.#deps.repo.connect(
      {
        provider: flowRow.provider,
        subject: flowRow.subject,
        sealed: this.#seal(flowRow.provider, flowRow.subject, tokens),
        scopes: tokens.scopes.join(' '),
        expires_at: tokens.expiresAt ?? null,
        connected_at: at,
        connected_by: flowRow.created_by,
        updated_at: at,
      },
      this.#deps.events.row('connection.connected', `connection:${flowRow.provider}`, actor, {
        account: flowRow.subject === '' ? 'service' : 'person',
        subject: flowRow.subject || null,
        scopes: tokens.scopes,
        ...(missingScopes.length > 0 && { missingScopes }),
      }),
    )
    this.#deps.events.tail.poke()
    await this.refresh()
    return { provider: flowRow.provider, subject: flowRow.subject, returnTo: flowRow.return_to, missingScopes }
  }

  /**
   * The access token of `subject`'s connection, refreshed first when it is about to expire: one
   * refresh across every manager (the others wait for its result). Throws NeedsConnectionError when
   * the person must connect (again), OAuthUnavailableError when the provider can't be reached.
   */
  async token(provider: string, subject: string, scopes: readonly string[], signal?: Stop): Promise<TokenSet> {
    const wanted = this.scopesFor(provider, scopes)
    if (subject !== '' && !(await this.#deps.isActive(subject)))
      throw this.#needs(provider, subject, wanted, wanted, `${subject} is disabled: their connections are not used`)
    for (let attempt = 0; ; attempt++) {
      const row = await this.#deps.repo.get(provider, subject)
      if (!row) throw this.#needs(provider, subject, wanted, wanted, null)
      if (row.status !== 'ready') throw this.#needs(provider, subject, wanted, wanted, row.reason)
      const tokens = this.#open(row)
      if (!tokens) throw this.#needs(provider, subject, wanted, wanted, 'its tokens can no longer be read (the secrets key changed)')
      const lacking = missing(wanted, row.scopes)
      if (lacking.length > 0)
        throw this.#needs(provider, subject, wanted, lacking, `the connection lacks the scope${lacking.length > 1 ? 's' : ''} ${lacking.join(', ')}`)
      // The row's expiry decides (what every manager reads); after waiting for another manager's refresh, a token not yet expired will do.
      const now = this.#deps.now().getTime()
      const expiresAt = row.expires_at === null ? Infinity : Date.parse(row.expires_at)
      if (expiresAt - now > (attempt === 0 ? REFRESH_AHEAD_MS : 0)) return tokens
      // Calls here share one refresh; other managers' wait in #refresh.
      const key = presenceKey(provider, subject)
      let refresh = this.#refreshing.get(key)
      if (!refresh) {
        // Detached from whichever caller started it (others share it), bounded by its own time.
        refresh = this.#refresh(row, tokens, wanted, AbortSignal.timeout(REFRESH_HOLD_MS)).finally(() => this.#refreshing.delete(key))
        this.#refreshing.set(key, refresh)
      }
      const result = await untilAborted(
        refresh,
        signal,
        () => new OAuthUnavailableError(`the ${this.#title(provider)} connection is still being refreshed; the call gave up waiting`),
      )
      if (result !== WAIT) return result
      if (attempt >= 3 || signal?.aborted)
        throw new OAuthUnavailableError(`the ${this.#title(provider)} connection is being refreshed elsewhere and did not finish in time; try again`)
    }
  }

  async #refresh(row: OAuthConnectionRow, tokens: TokenSet, wanted: string[], signal: AbortSignal | undefined): Promise<TokenSet | typeof WAIT> {
    const { provider, subject } = row
    const version = Number(row.version)
    const now = this.#deps.now()
    const claimed = await this.#deps.repo.claimRefresh(provider, subject, version, now.toISOString(), new Date(now.getTime() + REFRESH_HOLD_MS).toISOString())
    if (!claimed) {
      await this.#waitForVersion(provider, subject, version, signal)
      return WAIT
    }
    let next: TokenSet
    try {
      next = await this.#flow(provider).refresh(tokens, signal)
    } catch (error) {
      if (error instanceof OAuthRefusedError) {
        const reason = `the provider refused to refresh it: ${error.message}`
        const marked = await this.#deps.repo.needsAuth(
          provider,
          subject,
          version,
          reason,
          this.#deps.now().toISOString(),
          this.#deps.events.row(
            'connection.refresh_refused',
            `connection:${provider}`,
            { id: 'system', name: 'skillplane' },
            { subject: subject || null, reason },
          ),
        )
        // Reconnected meanwhile: the connection is another one now; read it.
        if (!marked) return WAIT
        this.#deps.events.tail.poke()
        await this.refresh()
        throw this.#needs(provider, subject, wanted, wanted, reason)
      }
      await this.#deps.repo.releaseRefresh(provider, subject, version)
      // The old token still works for a while: use it rather than fail the call.
      if (row.expires_at !== null && Date.parse(row.expires_at) > this.#deps.now().getTime()) return tokens
      throw error instanceof OAuthUnavailableError
        ? error
        : new OAuthUnavailableError(`the ${this.#title(provider)} connection could not be refreshed: ${(error as Error).message}`)
    }
    const stored = await this.#deps.repo.refreshed(provider, subject, version, {
      sealed: this.#seal(provider, subject, next),
      scopes: next.scopes.join(' '),
      expires_at: next.expiresAt ?? null,
      updated_at: this.#deps.now().toISOString(),
    })
    // Reconnected or disconnected meanwhile: this refresh's tokens are not the connection's; read what is.
    if (!stored) return WAIT
    return next
  }

  async #waitForVersion(provider: string, subject: string, version: number, signal: AbortSignal | undefined): Promise<void> {
    const until = this.#deps.now().getTime() + REFRESH_HOLD_MS
    for (let delay = 20; this.#deps.now().getTime() < until && !signal?.aborted; delay = Math.min(delay * 2, 500)) {
      await new Promise((resolve) => setTimeout(resolve, delay))
      const row = await this.#deps.repo.get(provider, subject)
      if (!row || Number(row.version) !== version || row.refreshing_until === null) return
    }
  }

  /**
   * A resource server refused `accessToken` (revoked at the provider, say): the connection goes back to
   * needs_auth, audited as `connection.token_refused`. Nothing changes when the connection holds
   * another token by now (reconnected, or refreshed since). True when it was marked.
   */
  async refused(provider: string, subject: string, accessToken: string, reason: string): Promise<boolean> {
    const row = await this.#deps.repo.get(provider, subject)
    if (!row || row.status !== 'ready' || this.#open(row)?.accessToken !== accessToken) return false
    const marked = await this.#deps.repo.needsAuth(
      provider,
      subject,
      Number(row.version),
      reason,
      this.#deps.now().toISOString(),
      this.#deps.events.row('connection.token_refused', `connection:${provider}`, { id: 'system', name: 'skillplane' }, { subject: subject || null, reason }),
    )
    if (!marked) return false
    this.#deps.events.tail.poke()
    await this.refresh()
    return true
  }

  /** The client registration skillplane made at a provider (RFC 7591), opened; undefined when none (or unreadable). */
  async client<T = Record<string, unknown>>(provider: string): Promise<T | undefined> {
    const sealed = await this.#deps.repo.client(provider)
    const opened = sealed === undefined ? null : this.#deps.key().open(sealed, sealedBinding.oauthClient(provider))
    return opened === null ? undefined : (JSON.parse(opened) as T)
  }

  /** Keep a client registration, sealed: it carries the client secret the provider issued. */
  async saveClient(provider: string, information: object): Promise<void> {
    await this.#deps.repo.saveClient(
      provider,
      this.#deps.key().seal(JSON.stringify(information), sealedBinding.oauthClient(provider)),
      this.#deps.now().toISOString(),
    )
  }

  /** Connections as listings show them: one person's (and the service ones), or everyone's. */
  async list(filter: { subject?: string } = {}): Promise<ConnectionInfo[]> {
    const rows = await this.#deps.repo.list()
    return rows.filter((r) => filter.subject === undefined || r.subject === filter.subject || r.subject === '').map((r) => this.#info(r))
  }

  /** Disconnect: delete the tokens (audited), then revoke them at the provider where it offers that. */
  async disconnect(provider: string, subject: string, actor: Actor): Promise<(ConnectionInfo & { revoked: boolean }) | null> {
    const deleted = await this.#deps.repo.disconnect(provider, subject, () =>
      this.#deps.events.row('connection.disconnected', `connection:${provider}`, actor, {
        account: subject === '' ? 'service' : 'person',
        subject: subject || null,
      }),
    )
    if (!deleted) return null
    this.#deps.events.tail.poke()
    await this.refresh()
    const flow = this.#flows.get(provider)
    const tokens = this.#open(deleted)
    let revoked = false
    if (flow?.revoke && tokens) {
      try {
        revoked = await flow.revoke(tokens)
      } catch (error) {
        this.#deps.warn(
          `the ${flow.title} tokens of ${subject || 'the service account'} were deleted but could not be revoked at the provider: ${(error as Error).message}`,
        )
      }
    }
    return { ...this.#info(deleted), state: 'needs_auth', revoked }
  }

  #needs(provider: string, subject: string, wanted: string[], lacking: string[], reason: string | null): NeedsConnectionError {
    const why = reason ? ` (${reason})` : ''
    // A link that connects the service account is an admin's to ask for: handed to a caller, they could connect their own account as everyone's.
    if (subject === '') {
      return new NeedsConnectionError(
        `the service account has no usable ${this.#title(provider)} connection${why}; an admin connects it (the console's Connections page, or POST /api/connections/${provider}/authorize with account "service")`,
        { provider, missingScopes: lacking },
      )
    }
    const authorizationUrl = this.authorizationUrl(provider, subject, wanted)
    return new NeedsConnectionError(`${subject} has no usable ${this.#title(provider)} connection${why}; connect at ${authorizationUrl}`, {
      provider,
      authorizationUrl,
      missingScopes: lacking,
    })
  }

  /** Whom a browser must be signed in as to use a link or callback of `subject` ('' for the service account, made by `by`). */
  #checkBrowser(subject: string, by: string, browserUser: string | null, what: string): void {
    if (browserUser === null) {
      if (this.#deps.signInRequired) throw new OAuthCallbackError(`sign in to the console first: ${what} is only used in the browser of the person it names`)
      return
    }
    const owner = subject === '' ? by : subject
    if (browserUser !== owner) {
      throw new OAuthCallbackError(
        subject === ''
          ? `${what} connects the service account for ${by}; you are signed in as ${browserUser}: nothing was connected`
          : `${what} connects ${subject}'s account; you are signed in as ${browserUser}: nothing was connected`,
      )
    }
  }

  #openLink(param: string | undefined): Link {
    const invalid = () => new OAuthCallbackError('this connect link is not valid (it was altered, or made with another secrets key): ask for a new one')
    if (!param) throw invalid()
    const [format, body = ''] = param.split('.')
    const opened = this.#deps.key().open(`${format}:${Buffer.from(body, 'base64url').toString('base64')}`, LINK_BINDING)
    if (opened === null) throw invalid()
    const link = JSON.parse(opened) as Link
    if (link.e <= this.#deps.now().getTime())
      throw new OAuthCallbackError('this connect link has expired: ask for a new one (retry the call, or press Connect again)')
    return link
  }

  #flow(provider: string): OAuthFlow {
    const flow = this.#flows.get(provider)
    if (!flow) throw new OAuthCallbackError(`no OAuth provider named ${JSON.stringify(provider)}`)
    return flow
  }

  #title(provider: string): string {
    return this.#flows.get(provider)?.title ?? provider
  }

  #redirectUri(): string {
    const base = this.#baseUrl()
    if (base === undefined) throw new OAuthUnavailableError('this server does not know its own address: set http.publicUrl (OAuth needs a callback URL)')
    return `${base}${CALLBACK_PATH}`
  }

  #seal(provider: string, subject: string, tokens: TokenSet): string {
    return this.#deps.key().seal(JSON.stringify(tokens), sealedBinding.oauthConnection(provider, subject))
  }

  #open(row: OAuthConnectionRow): TokenSet | null {
    const opened = this.#deps.key().open(row.sealed, sealedBinding.oauthConnection(row.provider, row.subject))
    return opened === null ? null : (JSON.parse(opened) as TokenSet)
  }

  #info(row: OAuthConnectionMeta): ConnectionInfo {
    const wanted = this.scopesFor(row.provider, [])
    return {
      provider: row.provider,
      title: this.#title(row.provider),
      account: row.subject === '' ? 'service' : 'person',
      subject: row.subject || null,
      state: row.status === 'ready' ? 'ready' : 'needs_auth',
      scopes: split(row.scopes),
      missingScopes: missing(wanted, row.scopes),
      expiresAt: row.expires_at,
      connectedAt: row.connected_at,
      connectedBy: row.connected_by,
      updatedAt: row.updated_at,
      reason: row.reason,
    }
  }

  #emit(provider: string, subject: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(provider, subject)
      } catch (error) {
        this.#deps.warn(`a connection listener failed: ${(error as Error).message}`)
      }
    }
  }
}

/** Where the callback may send the browser: a path of this server only (no open redirect). */
function consolePath(returnTo: string | undefined): string {
  if (!returnTo || !/^\/(?![/\\])\S*$/.test(returnTo)) return '/connections'
  // As a browser resolves it: `/.//evil.example` becomes `//evil.example`, another host.
  const resolved = new URL(returnTo, 'http://console.invalid')
  return resolved.origin === 'http://console.invalid' && !/^\/[/\\]/.test(resolved.pathname) ? `${resolved.pathname}${resolved.search}` : '/connections'
}

/** `work`, or the error `gaveUp` makes once `signal` aborts first. */
function untilAborted<T>(work: Promise<T>, signal: Stop | undefined, gaveUp: () => Error): Promise<T> {
  if (!signal) return work
  if (signal.aborted) return Promise.reject(gaveUp())
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(gaveUp())
    signal.addEventListener('abort', stop, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop))
  })
}

function presenceKey(provider: string, subject: string): string {
  return `${provider}\0${subject}`
}

/** What a started flow keeps sealed: its protocol checks (a PKCE verifier), and the hash of its browser's cookie. */
interface SealedChecks {
  flow: Record<string, string>
  browser: string
}

/** The cookie binding one flow to its browser: one per flow, so two started in one browser don't clash. */
export function flowCookie(stateHash: string): string {
  return `skillplane_oauth_${stateHash.slice(0, 16)}`
}

function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

function split(scopes: string): string[] {
  return scopes.split(/[\s,]+/).filter(Boolean)
}

function missing(wanted: readonly string[], granted: string): string[] {
  const have = new Set(split(granted))
  return wanted.filter((s) => !have.has(s))
}
