import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { isValidName } from '../sources/agent-skills/index.js'
import { BundleError, IntegrityError } from './bundle-error.js'
import { hashSkillFolder } from './hash-skill-folder.js'
import { readInstallManifest, type InstallManifest } from './install-manifest.js'
import { manifestPath, type InstallTarget } from './install-target.js'
import { readLockfile, writeLockfile, type LockEntry } from './lockfile.js'

/** A managed skill's previous version, kept when an install, update or upload replaced it. */
export interface KeptVersion {
  name: string
  /** Its lockfile entry as it was. */
  lock: LockEntry
  manifest: InstallManifest | null
  /** When it was replaced. */
  keptAt: string
  folder: string
}

/** Where a managed target keeps previous versions: `<dataDir>/skill-versions/NAME`. */
export function versionsRoot(target: InstallTarget): string {
  return join(dirname(target.root), 'skill-versions')
}

/**
 * Move an installed skill (folder, manifest, lockfile entry) aside as its previous version. The
 * version kept before it goes: one is kept, enough to undo the last change. The lockfile is not
 * written here: the caller writes the entry that replaces it.
 */
export function keepPrevious(target: InstallTarget, name: string, lock: LockEntry, now: string): void {
  const root = versionsRoot(target)
  mkdirSync(root, { recursive: true })
  // Built beside the kept one and swapped in whole: a crash leaves one kept version, old or new.
  const next = mkdtempSync(join(root, `.${name}-`))
  renameSync(join(target.root, name), join(next, 'folder'))
  if (existsSync(manifestPath(target, name))) renameSync(manifestPath(target, name), join(next, 'files.json'))
  writeFileSync(join(next, 'lock.json'), JSON.stringify({ lock, keptAt: now }, null, 2) + '\n')
  dropKept(target, name)
  renameSync(next, join(root, name))
}

/** The previous version kept for a skill, or null. */
export function keptVersion(target: InstallTarget, name: string): KeptVersion | null {
  const dir = join(versionsRoot(target), name)
  if (!existsSync(join(dir, 'lock.json')) || !existsSync(join(dir, 'folder'))) return null
  try {
    const { lock, keptAt } = JSON.parse(readFileSync(join(dir, 'lock.json'), 'utf8')) as { lock: LockEntry; keptAt: string }
    if (typeof lock?.computedHash !== 'string') return null
    return { name, lock, keptAt, manifest: readInstallManifest(join(dir, 'files.json')), folder: join(dir, 'folder') }
  } catch {
    return null
  }
}

/** Forget a skill's kept version (it was removed, or a newer one replaces it). */
export function dropKept(target: InstallTarget, name: string): void {
  const dir = join(versionsRoot(target), name)
  if (!existsSync(dir)) return
  const gone = `${dir}.dropped-${process.pid}`
  renameSync(dir, gone)
  rmSync(gone, { recursive: true, force: true })
}

/**
 * Put a skill's kept version back in place of the installed one, which becomes the kept version
 * (so a second rollback undoes the first). The kept files must still hash to their entry.
 */
export function rollbackSkill(target: InstallTarget, name: string, now: string): { restored: LockEntry; replaced: LockEntry | null } {
  if (target.kind !== 'managed') throw new BundleError(`rollback applies to skills installed under the data dir; ${target.root} keeps no versions`)
  if (!isValidName(name)) throw new BundleError(`"${name}" is not a skill name (a-z, 0-9 and single hyphens)`)
  const kept = keptVersion(target, name)
  if (!kept) throw new BundleError(`"${name}" has no previous version to roll back to (one is kept when an install, update or upload replaces a skill)`)
  const hash = hashSkillFolder(kept.folder, kept.manifest?.fromLinks)
  if (hash.computedHash !== kept.lock.computedHash)
    throw new IntegrityError(name, `the kept version of ${name} no longer hashes to ${kept.lock.computedHash}: it changed on disk, so it was not restored`)
  const lock = readLockfile(target.lockfile)
  const current = Object.hasOwn(lock.skills, name) ? lock.skills[name]! : null
  const staging = mkdtempSync(join(versionsRoot(target), `.${name}-rollback-`))
  try {
    renameSync(kept.folder, join(staging, 'folder'))
    const keptManifest = join(versionsRoot(target), name, 'files.json')
    if (existsSync(keptManifest)) renameSync(keptManifest, join(staging, 'files.json'))
    if (current && existsSync(join(target.root, name))) keepPrevious(target, name, current, now)
    else dropKept(target, name)
    renameSync(join(staging, 'folder'), join(target.root, name))
    if (existsSync(join(staging, 'files.json'))) renameSync(join(staging, 'files.json'), manifestPath(target, name))
    else rmSync(manifestPath(target, name), { force: true })
    lock.skills[name] = kept.lock
    writeLockfile(target.lockfile, lock)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return { restored: kept.lock, replaced: current }
}
