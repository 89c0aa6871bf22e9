import { createHash } from 'node:crypto'
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import type { Finding } from '../sources/agent-skills/index.js'
import { isInside } from '../system/index.js'
import { diffSkillFolders, hashSkillFolder, isEmptyDiff, type FileDiff } from './hash-skill-folder.js'
import { manifestPath, type InstallTarget } from './install-target.js'
import { readInstallManifest } from './install-manifest.js'
import { readLockfile, type Lockfile } from './lockfile.js'

/**
 * Why an installed skill folder must not be served, or null when its files still hash to what the
 * lockfile pins. A changed file is named through the manifest kept beside the folder.
 */
export function checkInstalledSkill(target: InstallTarget, name: string, lock: Lockfile): string | null {
  const entry = Object.hasOwn(lock.skills, name) ? lock.skills[name] : undefined
  if (!entry) return `"${name}" is in ${target.root} but not in ${target.lockfile}; not served (install it with skillplane skills add)`
  const manifest = readInstallManifest(manifestPath(target, name))
  const now = hashSkillFolder(join(target.root, name), manifest?.fromLinks)
  const diff = manifest && diffSkillFolders(manifest, now)
  // The lockfile's hash leaves symlinks out: the manifest is what notices one added or retargeted.
  if (now.computedHash === entry.computedHash && (!diff || isEmptyDiff(diff))) return null
  const what = diff ? describeDiff(diff) : `no ${basename(manifestPath(target, name))} to name the files`
  return `its files changed since it was installed (${what}): they no longer hash to the computedHash in ${target.lockfile}; not served (restore it with skillplane skills install, or remove it)`
}

export function describeDiff(diff: FileDiff): string {
  const parts = [
    diff.changed.length > 0 && `changed ${diff.changed.join(', ')}`,
    diff.added.length > 0 && `added ${diff.added.join(', ')}`,
    diff.removed.length > 0 && `removed ${diff.removed.join(', ')}`,
  ].filter(Boolean)
  return parts.length > 0 ? parts.join('; ') : 'the locked hash differs'
}

/**
 * A check for the loader: given a loaded skill, the finding that keeps it from being served when it
 * lies in the target's folder and fails checkInstalledSkill. The lockfile is read once; each
 * installed folder is hashed once, also when skills nest in it.
 */
export function installedSkillCheck(target: InstallTarget): (skill: { dir: string; file: string }) => Finding | undefined {
  let lock: Lockfile | Error
  try {
    lock = readLockfile(target.lockfile)
  } catch (error) {
    lock = error as Error
  }
  const verdicts = new Map<string, string | null>()
  // Loaded skills carry their real folder: compare with the real root.
  const root = existsSync(target.root) ? realpathSync(target.root) : target.root
  return (skill) => {
    if (!isInside(root, skill.dir) || skill.dir === root) return undefined
    const name = relative(root, skill.dir).split(sep)[0]!
    if (!verdicts.has(name)) verdicts.set(name, lock instanceof Error ? `${lock.message}; not served` : checkInstalledSkill(target, name, lock))
    const verdict = verdicts.get(name)!
    return verdict === null ? undefined : { file: skill.file, line: 1, severity: 'error', message: verdict }
  }
}

/** Every installed folder under the target that fails its check, as findings (for `skills validate`). */
export function checkInstalledSkills(target: InstallTarget): Finding[] {
  if (!existsSync(target.root)) return []
  const check = installedSkillCheck(target)
  return readdirSync(target.root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((entry) => check({ dir: join(target.root, entry.name), file: join(target.root, entry.name, 'SKILL.md') }) ?? [])
}

/**
 * A check for each file read from an installed skill while it is served (a resource, a script about
 * to run): the reason not to use it when its bytes don't hash to what was installed, or when it was
 * not installed at all; null for a file that matches, or one outside the target's folder. The load
 * check covers what is held in memory (SKILL.md); this covers what is read from disk later.
 */
export function installedFileCheck(target: InstallTarget): (file: string, content: Buffer) => string | null {
  return (file, content) => {
    const root = existsSync(target.root) ? realpathSync(target.root) : target.root
    if (!isInside(root, file) || file === root) return null
    const [name, ...rest] = relative(root, file).split(sep)
    const path = rest.join('/')
    const manifest = readInstallManifest(manifestPath(target, name!))
    if (!manifest) return `"${path}" of ${name} can't be checked: ${basename(manifestPath(target, name!))} is missing; not served`
    const expected = manifest.files[path]
    if (expected === undefined) return `"${path}" was not installed with ${name}; not served (skillplane skills install restores the skill)`
    if (createHash('sha256').update(content).digest('hex') !== expected)
      return `"${path}" changed since ${name} was installed; not served (skillplane skills install restores the skill)`
    return null
  }
}
