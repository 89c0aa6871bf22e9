import { didYouMean } from '../text/index.js'

/** The names of the config's OAuth providers. */
export function providerNames(config: { oauth: { providers: Record<string, unknown> } }): string[] {
  return Object.keys(config.oauth.providers)
}

/** Why `name` is not a provider of the config's `oauth.providers`, or null when it is one. */
export function unknownProvider(name: string, providers: readonly string[]): string | null {
  if (providers.includes(name)) return null
  const known = providers.length > 0 ? didYouMean(name, providers) || ` (it has ${providers.map((p) => `"${p}"`).join(', ')})` : ' (it names none)'
  return `no OAuth provider "${name}" in the config's oauth.providers${known}`
}
