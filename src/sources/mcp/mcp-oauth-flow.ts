import type {
  AuthorizationServerMetadata,
  OAuthClientInformationFull,
  OAuthProtectedResourceMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { ResolvedMcpServer } from '../../config/index.js'
import { OAuthCallbackError, OAuthRefusedError, OAuthUnavailableError, type OAuthFlow, type TokenSet } from '../../oauth/index.js'
import { VERSION } from '../../version.js'

export type OAuthMcpServer = Extract<ResolvedMcpServer, { transport: 'http' }> & {
  oauth: NonNullable<Extract<ResolvedMcpServer, { transport: 'http' }>['oauth']>
}

/** Where dynamic client registrations are kept, sealed (the connections service's `client` / `saveClient`). */
export interface ClientStore {
  client(provider: string): Promise<unknown>
  saveClient(provider: string, info: unknown): Promise<void>
}

export interface McpOAuthFlowOptions {
  clients: ClientStore
  /** Open global secrets (a configured client's secret). */
  secrets(names: string[]): Promise<Map<string, string>>
}

// Fields of RFC 8414 / RFC 9207 the SDK's schema passes through without naming them.
type Metadata = AuthorizationServerMetadata & {
  revocation_endpoint?: string
  revocation_endpoint_auth_methods_supported?: string[]
  authorization_response_iss_parameter_supported?: boolean
}

/** What discovery found: the authorization server and the resource indicator (RFC 8707) tokens are asked for. */
interface Discovered {
  issuer: string
  metadata: Metadata
  resource: string | undefined
  /** What the server's 401 or its metadata names, asked for when neither the config nor the skill do. */
  scopes: string[]
}

/** A registration as stored: which authorization server it belongs to, and what it answered. */
interface StoredClient {
  issuer: string
  client: OAuthClientInformationFull
}

const loadAuth = () => import('@modelcontextprotocol/sdk/client/auth.js')
const MAX_TEXT = 300

/** The provider name an imported server's authorization server has. */
export function mcpProvider(server: { name: string }): string {
  return `mcp:${server.name}`
}

/**
 * How skillplane connects to an imported MCP server's authorization server, as the MCP authorization
 * specification describes, with the MCP SDK's client auth: the server's 401 and its protected-resource
 * metadata (RFC 9728) name the authorization server, whose metadata (RFC 8414 / OpenID discovery) is
 * read; skillplane registers itself (RFC 7591) unless a client is configured; PKCE always; every
 * request names the server as the resource (RFC 8707), so a token is good for this server only.
 */
export class McpOAuthFlow implements OAuthFlow {
  readonly name: string
  readonly title: string
  readonly #server: OAuthMcpServer
  readonly #options: McpOAuthFlowOptions
  #discovered: Promise<Discovered> | undefined
  // People starting to connect at once share one registration (another would replace the first one's client).
  #registering: Promise<OAuthClientInformationFull> | undefined
  #scopes: string[] = []

  constructor(server: OAuthMcpServer, options: McpOAuthFlowOptions) {
    this.name = mcpProvider(server)
    this.title = `MCP server "${server.name}"`
    this.#server = server
    this.#options = options
  }

  /** The configured scopes, else those the server named once discovery has run (none before). */
  get defaultScopes(): readonly string[] {
    return this.#server.oauth.scopes ?? this.#scopes
  }

  async begin(request: { state: string; scopes: string[]; redirectUri: string; signal?: AbortSignal }): Promise<{ url: URL; checks: Record<string, string> }> {
    const found = await this.#discover()
    const client = await this.#client(found, request.redirectUri)
    const scopes = request.scopes.length > 0 ? request.scopes : [...this.defaultScopes]
    const { startAuthorization } = await loadAuth()
    try {
      const { authorizationUrl, codeVerifier } = await startAuthorization(found.issuer, {
        metadata: found.metadata,
        clientInformation: client,
        redirectUrl: request.redirectUri,
        state: request.state,
        ...(scopes.length > 0 && { scope: scopes.join(' ') }),
        ...(found.resource && { resource: found.resource }),
      })
      return { url: authorizationUrl, checks: { codeVerifier, clientId: client.client_id } }
    } catch (error) {
      throw new OAuthUnavailableError(`${this.title}: its authorization server can't be used: ${text(error)}`)
    }
  }

  async complete(request: { callbackUrl: URL; state: string; scopes: string[]; checks: Record<string, string>; redirectUri: string }): Promise<TokenSet> {
    const found = await this.#discover()
    const params = request.callbackUrl.searchParams
    const error = params.get('error')
    if (error)
      throw new OAuthRefusedError(
        `${this.title}: the authorization server answered ${cut(error)}${params.get('error_description') ? `: ${cut(params.get('error_description')!)}` : ''}`,
      )
    // RFC 9207: a response naming another issuer was meant for another authorization server (a mix-up).
    const iss = params.get('iss')
    if (iss !== null ? iss !== found.metadata.issuer : found.metadata.authorization_response_iss_parameter_supported === true) {
      throw new OAuthCallbackError(`${this.title}: the callback ${iss === null ? 'lacks the issuer' : `names another issuer (${cut(iss)})`}`)
    }
    const code = params.get('code')
    if (!code) throw new OAuthCallbackError(`${this.title}: the callback carries no authorization code`)
    const client = await this.#client(found, request.redirectUri)
    if (client.client_id !== request.checks.clientId)
      throw new OAuthRefusedError(`${this.title}: skillplane's registration changed while connecting; connect again`)
    const { exchangeAuthorization } = await loadAuth()
    const tokens = await oauthCall(this.title, 'redeeming the authorization code', () =>
      exchangeAuthorization(found.issuer, {
        metadata: found.metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier: request.checks.codeVerifier!,
        redirectUri: request.redirectUri,
        ...(found.resource && { resource: found.resource }),
      }),
    )
    return tokenSet(tokens, request.scopes)
  }

  async refresh(tokens: TokenSet, signal?: AbortSignal): Promise<TokenSet> {
    if (!tokens.refreshToken) throw new OAuthRefusedError(`${this.title}: the authorization server gave no refresh token; connect again`)
    const found = await this.#discover(signal)
    const client = await this.#stored(found)
    if (!client) throw new OAuthRefusedError(`${this.title}: skillplane's client registration is gone; connect again`)
    const { refreshAuthorization } = await loadAuth()
    const fresh = await oauthCall(this.title, 'refreshing the token', () =>
      refreshAuthorization(found.issuer, {
        metadata: found.metadata,
        clientInformation: client,
        refreshToken: tokens.refreshToken!,
        ...(found.resource && { resource: found.resource }),
        // Bounded whoever asks: a refresh that never answers must not hold every later call of this person.
        fetchFn: (url, init) => fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(10_000)]) : AbortSignal.timeout(10_000) }),
      }),
    )
    return tokenSet(fresh, tokens.scopes)
  }

  /** RFC 7009, where the authorization server offers it: the refresh token (and with it the grant), else the access token. */
  async revoke(tokens: TokenSet): Promise<boolean> {
    const found = await this.#discover()
    const endpoint = found.metadata.revocation_endpoint
    const client = await this.#stored(found)
    if (!endpoint || !client) return false
    const { selectClientAuthMethod } = await loadAuth()
    const body = new URLSearchParams({
      token: tokens.refreshToken ?? tokens.accessToken,
      token_type_hint: tokens.refreshToken ? 'refresh_token' : 'access_token',
    })
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' })
    const method = selectClientAuthMethod(
      client,
      found.metadata.revocation_endpoint_auth_methods_supported ?? found.metadata.token_endpoint_auth_methods_supported ?? [],
    )
    if (method === 'client_secret_basic') {
      headers.set(
        'authorization',
        `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret ?? '')}`).toString('base64')}`,
      )
    } else {
      body.set('client_id', client.client_id)
      if (method === 'client_secret_post' && client.client_secret) body.set('client_secret', client.client_secret)
    }
    let response: Response
    try {
      response = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) })
    } catch (error) {
      throw new OAuthUnavailableError(`${this.title}: revoking at the authorization server failed: ${text(error)}`)
    }
    await response.body?.cancel()
    if (!response.ok) throw new OAuthUnavailableError(`${this.title}: the authorization server answered HTTP ${response.status} to the revocation`)
    return true
  }

  /**
   * The authorization server and the resource, found once (again after a failure): the server's 401
   * names its metadata and scopes (WWW-Authenticate), else the well-known locations are tried.
   */
  #discover(signal?: AbortSignal): Promise<Discovered> {
    this.#discovered ??= this.#discoverNow(signal).catch((error: unknown) => {
      this.#discovered = undefined
      throw error
    })
    return this.#discovered
  }

  async #discoverNow(signal?: AbortSignal): Promise<Discovered> {
    const { extractWWWAuthenticateParams, discoverOAuthProtectedResourceMetadata, discoverAuthorizationServerMetadata } = await loadAuth()
    const url = new URL(this.#server.url)
    let challenge: { resourceMetadataUrl?: URL; scope?: string } = {}
    let resourceMetadata: OAuthProtectedResourceMetadata
    let metadata: Metadata | undefined
    try {
      // A request without a token: an MCP server that wants one answers 401 and says where its metadata is.
      const probe = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.#server.connectTimeoutMs)]) : AbortSignal.timeout(this.#server.connectTimeoutMs),
      })
      await probe.body?.cancel()
      if (probe.status === 401) challenge = extractWWWAuthenticateParams(probe)
      resourceMetadata = await discoverOAuthProtectedResourceMetadata(url, {
        ...(challenge.resourceMetadataUrl && { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      })
    } catch (error) {
      throw new OAuthUnavailableError(`${this.title}: its protected-resource metadata (RFC 9728) could not be read: ${text(error)}`)
    }
    const issuer = resourceMetadata.authorization_servers?.[0]
    if (!issuer) throw new OAuthUnavailableError(`${this.title}: its protected-resource metadata names no authorization server`)
    try {
      // The SDK's OpenID discovery schema drops the fields it doesn't name (the revocation endpoint, RFC 9207's flag): read them from the document it read.
      let document: Record<string, unknown> = {}
      const read = await discoverAuthorizationServerMetadata(issuer, {
        fetchFn: async (input, init) => {
          const response = await fetch(input, init)
          if (response.ok)
            document =
              ((await response
                .clone()
                .json()
                .catch(() => ({}))) as Record<string, unknown>) ?? {}
          return response
        },
      })
      metadata = read && { ...pick(document), ...read }
    } catch (error) {
      throw new OAuthUnavailableError(`${this.title}: the metadata of its authorization server ${issuer} could not be read: ${text(error)}`)
    }
    if (!metadata) throw new OAuthUnavailableError(`${this.title}: its authorization server ${issuer} publishes no metadata (RFC 8414 or OpenID discovery)`)
    const { checkResourceAllowed } = await import('@modelcontextprotocol/sdk/shared/auth-utils.js')
    // The metadata's resource must be the server asked (or a prefix of it), or a token for another server would be asked for.
    if (!checkResourceAllowed({ requestedResource: url, configuredResource: resourceMetadata.resource })) {
      throw new OAuthUnavailableError(`${this.title}: its protected-resource metadata is for another resource (${cut(resourceMetadata.resource)})`)
    }
    this.#scopes = challenge.scope?.split(' ').filter(Boolean) ?? resourceMetadata.scopes_supported ?? []
    return { issuer, metadata, resource: resourceMetadata.resource, scopes: this.#scopes }
  }

  /** The configured client, else the stored registration when it fits, else a new registration (RFC 7591), stored sealed. */
  async #client(found: Discovered, redirectUri: string): Promise<OAuthClientInformationFull> {
    const configured = await this.#configured(redirectUri)
    if (configured) return configured
    const stored = await this.#stored(found)
    if (stored?.redirect_uris.includes(redirectUri)) return stored
    this.#registering ??= this.#register(found, redirectUri).finally(() => {
      this.#registering = undefined
    })
    return this.#registering
  }

  async #register(found: Discovered, redirectUri: string): Promise<OAuthClientInformationFull> {
    if (!found.metadata.registration_endpoint) {
      throw new OAuthUnavailableError(
        `${this.title}: its authorization server ${found.issuer} offers no dynamic client registration: register skillplane there (redirect URL ${redirectUri}) and set oauth.clientId (and oauth.clientSecret) in the server's config`,
      )
    }
    const { registerClient } = await loadAuth()
    const methods = found.metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
    // skillplane keeps its secrets on the server side: a confidential client where the server allows one.
    const method = ['client_secret_basic', 'client_secret_post'].find((m) => methods.includes(m)) ?? 'none'
    const client = await oauthCall(this.title, 'registering skillplane as a client', () =>
      registerClient(found.issuer, {
        metadata: found.metadata,
        clientMetadata: {
          client_name: 'skillplane',
          software_id: 'skillplane',
          software_version: VERSION,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: method,
        },
      }),
    )
    await this.#options.clients.saveClient(this.name, { issuer: found.issuer, client } satisfies StoredClient)
    return client
  }

  async #configured(redirectUri: string): Promise<OAuthClientInformationFull | undefined> {
    const { clientId, clientSecret } = this.#server.oauth
    if (!clientId) return undefined
    let secret: string | undefined
    if (clientSecret) {
      secret = (await this.#options.secrets([clientSecret.secret])).get(clientSecret.secret)
      if (secret === undefined)
        throw new OAuthUnavailableError(
          `${this.title}: its oauth.clientSecret names the secret ${clientSecret.secret}, not set: an admin sets it with skillplane secrets set ${clientSecret.secret}`,
        )
    }
    return { client_id: clientId, ...(secret !== undefined && { client_secret: secret }), redirect_uris: [redirectUri] }
  }

  async #stored(found: Discovered): Promise<OAuthClientInformationFull | undefined> {
    const configured = await this.#configured('')
    if (configured) return configured
    const stored = (await this.#options.clients.client(this.name)) as StoredClient | undefined
    // A registration with another authorization server (the server moved) is not ours to use there.
    return stored?.issuer === found.issuer && typeof stored.client?.client_id === 'string' ? stored.client : undefined
  }
}

/** A request to the authorization server: a refusal (4xx with an OAuth error) means connecting again; anything else, trying later. */
async function oauthCall<T>(title: string, what: string, call: () => Promise<T>): Promise<T> {
  const { OAuthError, ServerError, TemporarilyUnavailableError, TooManyRequestsError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js')
  try {
    return await call()
  } catch (error) {
    const transient =
      !(error instanceof OAuthError) || error instanceof ServerError || error instanceof TemporarilyUnavailableError || error instanceof TooManyRequestsError
    const message = `${title}: ${what} failed: ${error instanceof OAuthError ? `${error.errorCode}${error.message ? `: ${cut(error.message)}` : ''}` : text(error)}`
    throw transient ? new OAuthUnavailableError(message) : new OAuthRefusedError(message)
  }
}

function tokenSet(tokens: OAuthTokens, asked: string[]): TokenSet {
  return {
    accessToken: tokens.access_token,
    ...(tokens.refresh_token && { refreshToken: tokens.refresh_token }),
    tokenType: tokens.token_type,
    ...(tokens.expires_in !== undefined && { expiresAt: new Date(Date.now() + tokens.expires_in * 1000).toISOString() }),
    scopes: tokens.scope !== undefined ? tokens.scope.split(/[\s,]+/).filter(Boolean) : asked,
  }
}

function pick(document: Record<string, unknown>): Partial<Metadata> {
  const { revocation_endpoint, revocation_endpoint_auth_methods_supported, authorization_response_iss_parameter_supported } = document
  return {
    ...(typeof revocation_endpoint === 'string' && { revocation_endpoint }),
    ...(Array.isArray(revocation_endpoint_auth_methods_supported) && {
      revocation_endpoint_auth_methods_supported: revocation_endpoint_auth_methods_supported.map(String),
    }),
    ...(authorization_response_iss_parameter_supported === true && { authorization_response_iss_parameter_supported }),
  }
}

function text(error: unknown): string {
  const cause = (error as { cause?: { message?: string } })?.cause?.message
  const message = error instanceof Error ? error.message : String(error)
  return cut(cause && !message.includes(cause) ? `${message} (${cause})` : message)
}

function cut(value: string): string {
  const line = value.replace(/\s+/g, ' ').trim()
  return line.length > MAX_TEXT ? `${line.slice(0, MAX_TEXT)}…` : line
}
