import { existsSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { Finding } from '../agent-skills/index.js'
import { BundleError } from './bundle-error.js'
import { copyTree } from './copy-tree.js'
import { discoverSkills, type DiscoveredSkill } from './discover-skills.js'
import type { FetchedSource } from './fetch-source.js'
import { diffSkillFolders, hashSkillFolder, isEmptyDiff, type FileDiff } from './hash-skill-folder.js'
import type { InstallTarget } from './install-target.js'
import { readLockfile, type LockEntry } from './lockfile.js'

/** One skill a plan would install, staged exactly as it would land. */
export interface PlannedSkill<R = never> {
  name: string
  description: string
  skillPath: string
  /** The staged copy: what would be installed, and what risk scans read. */
  staged: string
  computedHash: string
  files: Record<string, string>
  links: Record<string, string>
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
    const leftOut = copyTree(skill.dir, staged)
    const hash = hashSkillFolder(staged)
    const installed = join(target.root, skill.name)
    const diff = existsSync(installed) ? diffSkillFolders(hashSkillFolder(installed), hash) : null
    const replaces = Object.hasOwn(lock.skills, skill.name) ? lock.skills[skill.name]! : null
    const entry: LockEntry = {
      source: source.source,
      ...(source.ref !== undefined && { ref: source.ref }),
      sourceType: fetched.source.sourceType,
      computedHash: hash.computedHash,
      skillPath: skill.skillPath,
    }
    skills.push({
      name: skill.name,
      description: skill.description,
      skillPath: skill.skillPath,
      staged,
      ...hash,
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

/** How the lockfile names a fetched source: a local folder inside a project as a path relative to it. */
function lockSourceOf(fetched: FetchedSource, target: InstallTarget): { source: string; ref?: string } {
  const { source } = fetched
  const ref = source.ref ?? undefined
  if (target.kind === 'project' && (source.kind === 'folder' || source.kind === 'archive-file')) {
    const project = join(target.lockfile, '..')
    const rel = relative(project, source.location)
    if (!rel.startsWith('..') && rel !== '') return { source: rel.split(sep).join('/') }
  }
  return { source: source.source, ...(ref !== undefined && { ref }) }
}

/** `a` is the locked entry: one the `skills` CLI wrote has no skillPath, which is no change. */
function sameEntry(a: LockEntry, b: LockEntry): boolean {
  return (['source', 'ref', 'sourceType', 'computedHash', 'skillPath'] as const).every(
    (field) => a[field] === b[field] || (field === 'skillPath' && a[field] === undefined),
  )
}

function dirOf(skillPath: string): string {
  const slash = skillPath.lastIndexOf('/')
  return slash < 0 ? '' : skillPath.slice(0, slash + 1)
}
