/** What a provider's token endpoint gave for one connection, as skillplane keeps it (sealed). */
export interface TokenSet {
  accessToken: string
  refreshToken?: string
  tokenType?: string
  /** ISO time the access token expires; absent when the provider did not say. */
  expiresAt?: string
  /** The scopes granted (the provider's answer, or those asked for when it did not say). */
  scopes: string[]
}
