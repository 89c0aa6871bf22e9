import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { isValidName } from '../sources/agent-skills/index.js'
import { BundleError } from './bundle-error.js'
import { manifestPath, type InstallTarget } from './install-target.js'
import { readLockfile, writeLockfile } from './lockfile.js'
import { dropKept } from './skill-versions.js'
import { pruneUploads } from './upload-store.js'

/** Uninstall a skill: its folder, its manifest, its lockfile entry, its kept version and the upload nothing names any more. */
export function removeSkill(target: InstallTarget, name: string): void {
  if (!isValidName(name)) throw new BundleError(`"${name}" is not a skill name (a-z, 0-9 and single hyphens)`)
  const lock = readLockfile(target.lockfile)
  const folder = join(target.root, name)
  const locked = Object.hasOwn(lock.skills, name)
  if (!locked && !existsSync(folder)) {
    const names = Object.keys(lock.skills).sort()
    throw new BundleError(`no skill "${name}" is installed in ${target.root} (${names.length > 0 ? `installed: ${names.join(', ')}` : 'none is'})`)
  }
  if (existsSync(folder)) {
    // Out of the loaded folder first, in one step; then deleted.
    const gone = join(target.root, `.${name}-removed-${process.pid}`)
    renameSync(folder, gone)
    rmSync(gone, { recursive: true, force: true })
  }
  rmSync(manifestPath(target, name), { force: true })
  if (target.kind === 'managed') dropKept(target, name)
  if (locked) {
    delete lock.skills[name]
    writeLockfile(target.lockfile, lock)
  }
  if (target.kind === 'managed') pruneUploads(target)
}
