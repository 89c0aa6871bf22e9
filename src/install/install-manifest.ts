import { existsSync, readFileSync } from 'node:fs'

/** What was installed into a managed skill folder, file by file: how a changed file is named. */
export interface InstallManifest {
  name: string
  source: string
  sourceType: string
  ref: string | null
  /** The git commit it was installed from. */
  commit: string | null
  /** The SHA-256 of the archive it came in. */
  archiveSha256: string | null
  installedAt: string
  computedHash: string
  files: Record<string, string>
  /** Symlinks in the installed folder (none since symlinks are installed as copies; older installs kept them). */
  links: Record<string, string>
  /** Files installed from symlinks in the source: left out of computedHash, as the `skills` CLI's hash leaves them out. */
  fromLinks?: string[]
}

/** The manifest at path, or null when it is missing or unreadable (the caller says so). */
export function readInstallManifest(path: string): InstallManifest | null {
  if (!existsSync(path)) return null
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as InstallManifest
    const fromLinks = data.fromLinks === undefined || (Array.isArray(data.fromLinks) && data.fromLinks.every((p) => typeof p === 'string'))
    return typeof data.files === 'object' && typeof data.links === 'object' && fromLinks ? data : null
  } catch {
    return null
  }
}
