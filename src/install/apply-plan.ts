import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { IntegrityError } from './bundle-error.js'
import { copyTree } from './copy-tree.js'
import { hashSkillFolder } from './hash-skill-folder.js'
import type { InstallManifest } from './install-manifest.js'
import type { InstallPlan } from './install-plan.js'
import { manifestPath } from './install-target.js'
import { LOCK_FIELDS, readLockfile, writeLockfile } from './lockfile.js'
import { keepPrevious } from './skill-versions.js'

export interface ApplyOptions {
  /** Record the skills in the lockfile (default true); a frozen install leaves it as it is. */
  writeLock?: boolean
  now?: () => string
}

/**
 * Install a plan's new and updated skills: each is copied beside the target folder, checked
 * against its planned hash, and swapped in whole; a managed skill's manifest is written beside
 * it, and the version it replaces is kept; the lockfile is written last, so a plane watching it
 * sees finished folders.
 */
export function applyPlan(plan: InstallPlan<unknown>, options: ApplyOptions = {}): { installed: string[] } {
  const { target } = plan
  const now = options.now ?? (() => new Date().toISOString())
  mkdirSync(target.root, { recursive: true })
  const staging = mkdtempSync(join(dirname(target.root), `.${basename(target.root)}-staging-`))
  const installed: string[] = []
  try {
    // Every skill is copied and checked before any is swapped in: a refusal leaves the installed ones as they were.
    const pending = plan.skills.filter((skill) => skill.change !== 'unchanged')
    const copies = pending.map((skill) => {
      const copy = join(staging, skill.name)
      copyTree(skill.staged, copy)
      const hash = hashSkillFolder(copy, skill.fromLinks)
      if (hash.computedHash !== skill.computedHash)
        throw new IntegrityError(skill.name, `${skill.name}: the staged files changed before they were installed; nothing was installed`)
      return { skill, copy, hash }
    })
    for (const { skill, copy, hash } of copies) {
      const folder = join(target.root, skill.name)
      // A managed skill's replaced version is kept for `skills rollback`; a project's history is its own.
      if (existsSync(folder) && target.kind === 'managed' && skill.replaces) keepPrevious(target, skill.name, skill.replaces, now())
      else if (existsSync(folder)) renameSync(folder, join(staging, `${skill.name}.old`))
      renameSync(copy, folder)
      if (target.kind === 'managed') {
        const { fetched } = plan
        const manifest: InstallManifest = {
          name: skill.name,
          source: skill.lock.source,
          sourceType: skill.lock.sourceType,
          ref: skill.lock.ref ?? null,
          commit: fetched.commit,
          archiveSha256: fetched.archive?.sha256 ?? null,
          installedAt: now(),
          computedHash: hash.computedHash,
          files: hash.files,
          links: hash.links,
          fromLinks: skill.fromLinks,
        }
        writeFileSync(manifestPath(target, skill.name), JSON.stringify(manifest, null, 2) + '\n')
      }
      installed.push(skill.name)
    }
    // An unchanged skill's entry is left as it is, so a lockfile the skills CLI wrote isn't rewritten.
    if (options.writeLock !== false && pending.length > 0) {
      const lock = readLockfile(target.lockfile)
      for (const skill of pending) {
        // Fields another tool wrote into an entry stay, after skillplane's; the ones skillplane writes are replaced whole.
        const own: readonly string[] = LOCK_FIELDS
        const foreign = Object.entries(lock.skills[skill.name] ?? {}).filter(([field]) => !own.includes(field))
        lock.skills[skill.name] = { ...skill.lock, ...Object.fromEntries(foreign) }
      }
      writeLockfile(target.lockfile, lock)
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return { installed }
}
