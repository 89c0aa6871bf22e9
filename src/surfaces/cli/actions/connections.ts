import type { Skillplane } from '../../../agents/index.js'
import { didYouMean } from '../../../text/index.js'
import { localAdmin, withStore, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

type WhomOptions = GlobalOptions & { user?: string; service?: boolean; json?: boolean }

export async function connectionsList(o: GlobalOptions & { user?: string; json?: boolean }): Promise<void> {
  if (o.user !== undefined) nonEmpty(o.user)
  const { providers, connections } = await withStore(o, async (plane) => {
    if (o.user !== undefined) await person(plane, o.user)
    const all = await plane.oauth.list(o.user === undefined ? {} : { subject: o.user })
    // One person's own: the service account's are listed without --user.
    return { providers: plane.oauth.providers(), connections: o.user === undefined ? all : all.filter((c) => c.subject === o.user) }
  })
  if (o.json) return console.log(JSON.stringify({ providers, connections }, null, 2))
  console.log(
    providers.length === 0
      ? 'no OAuth providers configured (name them under oauth.providers in the config)'
      : formatTable(
          ['PROVIDER', 'TITLE', 'DEFAULT SCOPES'],
          providers.map((p) => [p.name, p.title, p.defaultScopes.join(' ') || '-']),
        ),
  )
  console.log('')
  if (connections.length === 0) return console.log(o.user === undefined ? 'no connections' : `no connections of ${o.user}`)
  console.log(
    formatTable(
      ['PROVIDER', 'ACCOUNT', 'PERSON', 'STATE', 'SCOPES', 'MISSING', 'EXPIRES', 'CONNECTED', 'CONNECTED BY', 'REASON'],
      connections.map((c) => [
        c.provider,
        c.account,
        c.subject ?? '-',
        c.state,
        c.scopes.join(' ') || '-',
        c.missingScopes.join(' ') || '-',
        c.expiresAt ?? '-',
        c.connectedAt,
        c.connectedBy,
        c.reason ?? '-',
      ]),
    ),
  )
}

export async function connectionsConnect(provider: string, o: WhomOptions & { scope?: string[]; returnTo?: string; as?: string }): Promise<void> {
  const subject = whom(o)
  if (o.as !== undefined && subject !== '')
    throw new CliError("--as names the admin who opens a service-account link; a person's link opens in their own browser")
  const made = await withStore(o, async (plane) => {
    knownProvider(plane, provider)
    if (subject !== '') {
      const user = await person(plane, subject)
      if (user.disabledAt !== null)
        throw new CliError(`user ${subject} is disabled, so their connections are not used: skillplane users enable ${subject} first`)
    }
    const by = await opener(plane, subject, o.as)
    const existing = (await plane.oauth.list({ subject })).find((c) => c.provider === provider && (c.subject ?? '') === subject)
    const scopes = [...new Set([...(existing?.scopes ?? []), ...plane.oauth.scopesFor(provider, o.scope ?? [])])]
    const authorizationUrl = plane.oauth.authorizationUrl(provider, subject, o.scope ?? [], {
      ...(o.returnTo !== undefined && { returnTo: o.returnTo }),
      by,
    })
    const title = plane.oauth.providers().find((p) => p.name === provider)!.title
    return { authorizationUrl, expiresInMs: plane.config.oauth.linkTtlMs, scopes, title, publicUrl: plane.config.http.publicUrl }
  })
  // No http.publicUrl and no server has listened on this database: the link would have no origin.
  if (made.authorizationUrl.startsWith('/'))
    throw new CliError(
      'this database has no server address to link to: set http.publicUrl in the config (the origin people reach skillplane at), or start skillplane serve once',
    )
  if (o.json) return console.log(JSON.stringify({ authorizationUrl: made.authorizationUrl, expiresInMs: made.expiresInMs, scopes: made.scopes }, null, 2))
  const asks = made.scopes.length > 0 ? `, asking for ${made.scopes.join(' ')}` : ''
  console.log(
    subject === ''
      ? `Open this link and sign in at ${provider} (${made.title}) as the service account to connect it${asks}. Valid for ${validFor(made.expiresInMs)}:`
      : `Send this link to ${subject}: opening it connects their account at ${provider} (${made.title})${asks}. Valid for ${validFor(made.expiresInMs)}:`,
  )
  console.log(made.authorizationUrl)
  if (made.publicUrl === undefined)
    process.stderr.write(
      `skillplane: the link names ${new URL(made.authorizationUrl).origin}, where a server of this database last listened; set http.publicUrl for an address other machines reach\n`,
    )
}

export async function connectionsDisconnect(provider: string, o: WhomOptions): Promise<void> {
  const subject = whom(o)
  const done = await withStore(o, async (plane) => {
    knownProvider(plane, provider)
    return plane.oauth.disconnect(provider, subject, localAdmin())
  })
  const who = subject === '' ? 'the service account' : subject
  if (!done) throw new CliError(`${who} has no ${provider} connection`)
  if (o.json) return console.log(JSON.stringify(done, null, 2))
  console.log(
    `disconnected ${subject === '' ? "the service account's" : `${subject}'s`} ${provider} connection: its tokens are deleted` +
      (done.revoked
        ? ' and revoked at the provider'
        : '; they were not revoked at the provider (it offers no revocation, or refused it): remove the app in its settings to be sure'),
  )
}

/**
 * Whose browser may open the link: the person's own for theirs; for the service account's, the
 * admin it names (a browser signed in to the console as anyone else is refused), else the local
 * admin, whom no console sign-in is, so only a browser signed in to none.
 */
async function opener(plane: Skillplane, subject: string, as: string | undefined): Promise<string> {
  if (subject !== '') return localAdmin().name
  if (as === undefined) {
    if (plane.config.auth.oidc)
      throw new CliError(
        'the console has a sign-in, so a service-account link opens only in the browser of the admin it names: give --as NAME (the user who will open it)',
      )
    return localAdmin().name
  }
  nonEmpty(as, '--as')
  const admin = await person(plane, as)
  if (admin.disabledAt !== null) throw new CliError(`user ${as} is disabled`)
  // No role check: a role can come from a key or the identity provider's groups, not the user row; the local admin chooses whose browser opens it.
  return admin.name
}

/** The connection's subject: a person's name, or '' for the service account. */
function whom(o: WhomOptions): string {
  if (o.user !== undefined && o.service) throw new CliError('give --user or --service, not both')
  if (o.service) return ''
  if (o.user === undefined) throw new CliError('name whose connection: --user NAME for a person, or --service for the service account')
  nonEmpty(o.user)
  return o.user
}

// `--user "$U"` with U unset must not mean someone else.
function nonEmpty(name: string, flag = '--user'): void {
  if (name.trim() === '') throw new CliError(`${flag} is empty: name the person`)
}

function knownProvider(plane: Skillplane, provider: string): void {
  if (plane.oauth.has(provider)) return
  const names = plane.oauth.providers().map((p) => p.name)
  throw new CliError(
    `no OAuth provider named ${JSON.stringify(provider)}${didYouMean(provider, names)}; configured: ${names.join(', ') || 'none (name them under oauth.providers in the config)'}`,
  )
}

async function person(plane: Skillplane, name: string) {
  const user = await plane.people.users.get(name)
  if (user) return user
  const names = (await plane.people.users.list()).map((u) => u.name)
  throw new CliError(`no user ${JSON.stringify(name)}${didYouMean(name, names)}`)
}

function validFor(ms: number): string {
  const minutes = ms / 60_000
  if (Number.isInteger(minutes)) return minutes >= 60 && minutes % 60 === 0 ? plural(minutes / 60, 'hour') : plural(minutes, 'minute')
  return plural(Math.round(ms / 1000), 'second')
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`
}
