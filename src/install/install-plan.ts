import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, sep } from 'node:path'
import type { Finding } from '../sources/agent-skills/index.js'
import { BundleError } from './bundle-error.js'
import { copyTree } from './copy-tree.js'
import { DEFAULT_ARCHIVE_LIMITS } from './extract-archive.js'
import { discoverSkills, type DiscoveredSkill } from './discover-skills.js'
import type { FetchedSource } from './fetch-source.js'
import { diffSkillFolders, hashSkillFolder, isEmptyDiff, type FileDiff } from './hash-skill-folder.js'
import type { InstallTarget } from './install-target.js'
import { LOCK_FIELDS, lockEntry, readLockfile, type LockEntry } from './lockfile.js'

/** One skill a plan would install, staged exactly as it would land. */
export interface PlannedSkill<R = never> {
  name: string
  description: string
  skillPath: string
  /** The staged copy: what would be installed, and what risk scans read. */
  staged: string
  computedHash: string
  /** Every file it would install → its SHA-256, files copied from symlinks included. */
  files: Record<string, string>
  /** The symlinks in the source that are installed as copies of what they point at → their link text. */
  links: Record<string, string>
  /** The files installed from those symlinks: computedHash leaves them out, as the `skills` CLI's hash of the source does. */
  fromLinks: string[]
  /** `skills validate` findings for its files, plus what staging left out (links out of the skill). */
  findings: Finding[]
  /** new: not installed; update: installed with other files; unchanged: installed with these files. */
  change: 'new' | 'update' | 'unchanged'
  /** Against what is installed now (null for a new skill). */
  diff: FileDiff | null
  /** The lockfile entry it replaces, when one exists. */
  replaces: LockEntry | null
  /** The entry the lockfile gets. */
  lock: LockEntry
  /** What a risk scan of the staged folder found (empty without one). */
  risks: R[]
}

/** What installing from a fetched source would do; nothing is written until applyPlan. */
export interface InstallPlan<R = never> {
  fetched: FetchedSource
  target: InstallTarget
  /** Every skill the source holds, selected or not. */
  available: Array<Pick<DiscoveredSkill, 'name' | 'description' | 'skillPath'>>
  skills: PlannedSkill<R>[]
  /** Findings about the source as a whole and about folders that won't load (and so won't install). */
  findings: Finding[]
}

export interface PlanOptions<R> {
  target: InstallTarget
  /** Skill names to install (default: all); a name the source doesn't hold is an error listing those it does. */
  select?: readonly string[]
  /** The lockfile's `source` and `ref` for these skills (default: the fetched source's own). */
  lockSource?: { source: string; ref?: string }
  /** Risk findings for a staged skill folder, carried on the plan. */
  scan?: (dir: string) => Promise<R[]>
}

/** Discover, select and stage the skills of a fetched source, and compare them with what is installed. */
export async function planInstall<R = never>(fetched: FetchedSource, options: PlanOptions<R>): Promise<InstallPlan<R>> {
  const { target } = options
  const found = discoverSkills(fetched.root, fetched.base)
  const available = found.skills.map(({ name, description, skillPath }) => ({ name, description, skillPath }))
  let chosen = found.skills
  if (options.select && options.select.length > 0) {
    const missing = options.select.filter((name) => !found.skills.some((s) => s.name === name))
    if (missing.length > 0) {
      const have = available.map((s) => s.name).join(', ') || 'none'
      throw new BundleError(`${fetched.source.source} has no skill named ${missing.map((m) => `"${m}"`).join(', ')} (it has: ${have})`)
    }
    chosen = found.skills.filter((s) => options.select!.includes(s.name))
  }
  const lock = readLockfile(target.lockfile)
  const source = options.lockSource ?? lockSourceOf(fetched, target)
  const skills: PlannedSkill<R>[] = []
  for (const skill of chosen) {
    const staged = join(fetched.work, skill.name)
    // Installed as the skills CLI installs it: a symlink becomes a copy of what it points at.
    const leftOut = copyTree(skill.dir, staged, DEFAULT_ARCHIVE_LIMITS, { dereference: true })
    const original = hashSkillFolder(skill.dir)
    const copied = hashSkillFolder(staged)
    const fromLinks = Object.keys(copied.files).filter((path) => !Object.hasOwn(original.files, path))
    const hash = fromLinks.length > 0 ? hashSkillFolder(staged, fromLinks) : copied
    const links = Object.fromEntries(Object.entries(original.links).filter(([path]) => !leftOut.some((l) => l.path === path)))
    const installed = join(target.root, skill.name)
    const diff = existsSync(installed) ? diffSkillFolders(hashSkillFolder(installed), hash) : null
    const replaces = Object.hasOwn(lock.skills, skill.name) ? lock.skills[skill.name]! : null
    const { sourceType, location } = fetched.source
    const entry = lockEntry({
      source: source.source,
      sourceUrl: sourceType === 'git' || sourceType === 'gitlab' ? location : undefined,
      ref: source.ref,
      sourceType,
      // The skills CLI records no skillPath for a local folder; a skill there is found by its name.
      skillPath: sourceType === 'local' ? undefined : skill.skillPath,
      computedHash: hash.computedHash,
    })
    skills.push({
      name: skill.name,
      description: skill.description,
      skillPath: skill.skillPath,
      staged,
      computedHash: hash.computedHash,
      files: hash.files,
      links,
      fromLinks,
      findings: [
        ...skill.findings,
        ...leftOut.map((l): Finding => ({ file: `${dirOf(skill.skillPath)}${l.path}`, line: 1, severity: 'warning', message: `${l.reason}; not installed` })),
      ],
      change: diff === null ? 'new' : isEmptyDiff(diff) && replaces !== null && sameEntry(replaces, entry) ? 'unchanged' : 'update',
      diff,
      replaces,
      lock: entry,
      risks: options.scan ? await options.scan(staged) : [],
    })
  }
  const leftOut = fetched.leftOut.map((l): Finding => ({ file: l.path, line: 1, severity: 'warning', message: `${l.reason}; not fetched` }))
  return { fetched, target, available, skills, findings: [...leftOut, ...found.findings] }
}

/**
 * How the lockfile names a fetched source: in a project, a folder or archive on disk as the `skills`
 * CLI writes a local source, relative to the lockfile's folder (`./skills`, `../shared`, `.`).
 */
function lockSourceOf(fetched: FetchedSource, target: InstallTarget): { source: string; ref?: string } {
  const { source } = fetched
  const ref = source.ref ?? undefined
  if (target.kind === 'project' && (source.kind === 'folder' || source.kind === 'archive-file'))
    return { source: portablePath(dirname(target.lockfile), source.location) }
  return { source: source.source, ...(ref !== undefined && { ref }) }
}

/** The skills CLI's getPortableLocalSource: `./` before a path inside, `..` paths as they are, absolute only across drives. */
function portablePath(from: string, path: string): string {
  const rel = relative(from, path)
  if (isAbsolute(rel)) return path.split(sep).join('/')
  const portable = rel.split(sep).join('/')
  if (portable === '') return '.'
  return portable === '..' || portable.startsWith('../') ? portable : `./${portable}`
}

/** `a` is the locked entry: one an older `skills` CLI (or skillplane) wrote has no sourceUrl or skillPath, which is no change. */
function sameEntry(a: LockEntry, b: LockEntry): boolean {
  return LOCK_FIELDS.every((field) => a[field] === b[field] || ((field === 'skillPath' || field === 'sourceUrl') && a[field] === undefined))
}

function dirOf(skillPath: string): string {
  const slash = skillPath.lastIndexOf('/')
  return slash < 0 ? '' : skillPath.slice(0, slash + 1)
}
