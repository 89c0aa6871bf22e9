/**
 * What each sealed column is bound to (the AES-GCM associated data): a ciphertext copied onto another
 * row no longer opens. One place, so a key rotation re-seals every table the way its owner opens it.
 */
export const sealedBinding = {
  connectionValue: (id: { kind: string; name: string; scope: string; subject: string }): string => JSON.stringify([id.kind, id.name, id.scope, id.subject]),
  oauthConnection: (provider: string, subject: string): string => JSON.stringify(['oauth', provider, subject]),
  oauthClient: (provider: string): string => JSON.stringify(['oauth-client', provider]),
}
