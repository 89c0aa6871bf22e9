import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Finding } from '../agent-skills/index.js'
import { parsePackManifest, type PackManifest } from './parse-pack-manifest.js'
import { isInside } from '../../system/index.js'

export const MANIFEST = 'skill.json'
const SKIP = new Set(['.git', 'node_modules'])

export interface Pack {
  manifest: PackManifest
  /** The pack folder's real path. */
  dir: string
  /** skill.json as found. */
  file: string
  /** The entry's real path, inside the pack root. */
  entry: string
  /** The pack root's real path: the entry must still be inside it when it runs. */
  root: string
}

/** Why a pack can't use an OAuth provider here (it is not configured), or null when it can. */
export type OAuthCheck = (provider: string) => string | null

/**
 * Packs under the configured roots (a folder with skill.json, searched up to 4 levels deep). A bad
 * manifest, an entry that is missing, not executable or outside the root, an OAuth provider
 * `oauth` refuses, and a name already taken are skipped with a finding naming the file: nothing
 * silently replaces a skill.
 */
export function loadPacks(
  roots: readonly string[],
  taken: (name: string) => string | undefined = () => undefined,
  oauth: OAuthCheck = (provider) => `no OAuth provider "${provider}" is configured`,
): { packs: Pack[]; findings: Finding[] } {
  const packs: Pack[] = []
  const findings: Finding[] = []
  const byName = new Map<string, Pack>()
  for (const root of roots.map((r) => resolve(r))) {
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      findings.push({ file: root, line: 1, severity: 'error', message: 'not a directory' })
      continue
    }
    const realRoot = realpathSync(root)
    const visit = (dir: string, depth: number) => {
      const file = join(dir, MANIFEST)
      if (existsSync(file)) {
        let pack: Pack | null
        try {
          pack = loadOne(dir, file, realRoot, findings, oauth)
        } catch (error) {
          // An unreadable manifest (a directory named skill.json, no permission) skips that pack only.
          findings.push({
            file,
            line: 1,
            severity: 'error',
            message: `can't read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; skipped`,
          })
          return
        }
        if (!pack) return
        const owner = byName.get(pack.manifest.name)?.file ?? taken(pack.manifest.name)
        if (owner) findings.push({ file, line: 1, severity: 'error', message: `name "${pack.manifest.name}" is taken by ${owner}; skipped` })
        else {
          byName.set(pack.manifest.name, pack)
          packs.push(pack)
        }
        return
      }
      if (depth >= 4) return
      let entries
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch (error) {
        findings.push({ file: dir, line: 1, severity: 'warning', message: `can't list: ${(error as NodeJS.ErrnoException).code}` })
        return
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.isDirectory() && !SKIP.has(entry.name)) visit(join(dir, entry.name), depth + 1)
      }
    }
    visit(root, 0)
  }
  return { packs, findings }
}

function loadOne(dir: string, file: string, realRoot: string, findings: Finding[], oauth: OAuthCheck): Pack | null {
  const fail = (message: string) => {
    findings.push({ file, line: 1, severity: 'error', message: `${message}; skipped` })
    return null
  }
  const parsed = parsePackManifest(readFileSync(file, 'utf8'))
  if (!parsed.ok) return fail(parsed.message)
  const { manifest } = parsed
  const refused = manifest.oauth && oauth(manifest.oauth.provider)
  if (refused) return fail(`field "oauth.provider": ${refused}`)
  const realDir = realpathSync(dir)
  let entry: string
  try {
    entry = realpathSync(resolve(realDir, manifest.entry))
  } catch {
    return fail(`field "entry": ${manifest.entry} does not exist`)
  }
  if (!isInside(realRoot, entry)) return fail(`field "entry": ${manifest.entry} resolves outside the pack root ${realRoot}`)
  if (!statSync(entry).isFile()) return fail(`field "entry": ${manifest.entry} is not a file`)
  try {
    accessSync(entry, constants.X_OK)
  } catch {
    return fail(`field "entry": ${manifest.entry} is not executable (chmod +x)`)
  }
  // skillplane's own settings (the approval secret, the database URL) never reach a pack.
  const own = manifest.env_allow.filter((name) => name.startsWith('SKILLPLANE_'))
  if (own.length) return fail(`field "env_allow": ${own.join(', ')} belong to skillplane and are never passed to packs`)
  return { manifest, dir: realDir, file, entry, root: realRoot }
}
