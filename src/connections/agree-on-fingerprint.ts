import { StoreError, type SettingsRepository } from '../store/index.js'

/** How a key or secret is named in the refusal: what it is, what it seals, where it comes from. */
export interface FingerprintWords {
  what: string
  sealed: string
  file: string
  env: string
}

/**
 * The first manager records its key's fingerprint; every later one must hold the same key, or
 * stop before it seals or opens anything the others could not read.
 */
export async function agreeOnFingerprint(
  settings: SettingsRepository,
  setting: string,
  key: { fingerprint(): string; source: string },
  words: FingerprintWords,
): Promise<void> {
  const agreed = await settings.getOrInit(setting, key.fingerprint())
  if (agreed === key.fingerprint()) return
  const same = words.what.endsWith('key') ? 'key' : 'secret'
  throw new StoreError(
    `the ${words.what} in ${key.source} is not the one ${words.sealed} ` +
      `(fingerprint ${key.fingerprint()}, expected ${agreed}): managers sharing a database need the same ${same}; ` +
      `copy ${words.file} from the first manager's data dir, or set ${words.env} on all of them`,
  )
}
