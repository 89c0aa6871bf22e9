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
  links: Record<string, string>
}

/** The manifest at path, or null when it is missing or unreadable (the caller says so). */
export function readInstallManifest(path: string): InstallManifest | null {
  if (!existsSync(path)) return null
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as InstallManifest
    return typeof data.files === 'object' && typeof data.links === 'object' ? data : null
  } catch {
    return null
  }
}
