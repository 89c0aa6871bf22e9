import { existsSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs'
import { basename, join } from 'node:path'
import type { Finding } from './finding.js'
import { isInside } from '../../system/index.js'

export const SKILL_FILE = 'SKILL.md'
export const TEMPLATE_FILE = 'SKILL.md.template'
const SKIP = new Set(['.git', 'node_modules'])

export interface SkillDir {
  /** The folder as found (maybe through a symlink). */
  path: string
  /** Its real path, inside an allowed root. */
  real: string
  /** SKILL.md, or SKILL.md.template for a per-user template. */
  file: string
  template: boolean
}

export interface FindOptions {
  maxDepth: number
  maxSkills: number
}

export const DEFAULT_FIND: FindOptions = { maxDepth: 6, maxSkills: 10_000 }

/**
 * Skill folders under each root: every folder holding SKILL.md, the root included, skill folders
 * searched too (skipping .git and node_modules), down to a depth and up to a count. Nothing is
 * skipped silently: a skill past either limit, or a folder that can't be listed, is a finding of
 * severity `skipped` (a warning when loading, an error when validating). Symlinked folders are
 * followed only when they resolve inside the root they were found in.
 */
export function findSkillDirs(
  roots: readonly string[],
  options: FindOptions = DEFAULT_FIND,
  skipped: Finding['severity'] = 'warning',
): { dirs: SkillDir[]; findings: Finding[] } {
  const dirs: SkillDir[] = []
  const findings: Finding[] = []
  const seen = new Set<string>()
  // Set when a skill is found with the count already reached: only then was one left out.
  let capped = false
  for (const root of roots) {
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      findings.push({ file: root, line: 1, severity: 'error', message: 'not a directory' })
      continue
    }
    const realRoot = realpathSync(root)
    // `real` is known for a plain subfolder of a real folder; only symlinks need resolving.
    const visit = (path: string, depth: number, known?: string): void => {
      if (capped) return
      let real: string
      try {
        real = known ?? realpathSync(path)
      } catch {
        findings.push({ file: path, line: 1, severity: 'warning', message: 'broken symlink; skipped' })
        return
      }
      if (!isInside(realRoot, real)) {
        findings.push({ file: path, line: 1, severity: 'error', message: `symlink resolves outside ${root} (to ${real}); skipped` })
        return
      }
      if (seen.has(real)) return
      seen.add(real)
      let entries: Dirent[]
      try {
        entries = readdirSync(path, { withFileTypes: true })
      } catch (error) {
        findings.push({ file: path, line: 1, severity: skipped, message: `can't list: ${(error as NodeJS.ErrnoException).code}; not searched` })
        return
      }
      const names = new Set(entries.map((entry) => entry.name))
      const file = [SKILL_FILE, TEMPLATE_FILE].find((f) => names.has(f))
      // Past the depth limit the walk goes on only to report what it leaves out.
      if (depth > options.maxDepth) {
        if (file)
          findings.push({
            file: join(path, file),
            line: 1,
            severity: skipped,
            message: `${depth} levels below ${root}, deeper than the limit of ${options.maxDepth}; skipped`,
          })
      } else if (file) {
        if (dirs.length >= options.maxSkills) {
          capped = true
          return
        }
        if (file === SKILL_FILE && names.has(TEMPLATE_FILE)) {
          findings.push({ file: join(path, TEMPLATE_FILE), line: 1, severity: 'warning', message: `ignored: ${SKILL_FILE} is in the same folder` })
        }
        dirs.push({ path, real, file: join(path, file), template: file === TEMPLATE_FILE })
      } else {
        const misnamed = [...names].find((name) => name.toLowerCase() === 'skill.md')
        if (misnamed)
          findings.push({ file: join(path, misnamed), line: 1, severity: 'error', message: `the file must be named ${SKILL_FILE}, not ${misnamed}; skipped` })
      }
      // A skill's own folders are searched too: skills nested in a skill load as skills of their own.
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (SKIP.has(entry.name)) continue
        const child = join(path, entry.name)
        if (entry.isDirectory()) visit(child, depth + 1, join(real, entry.name))
        else if (entry.isSymbolicLink()) {
          let isDir: boolean
          try {
            isDir = statSync(child).isDirectory()
          } catch {
            findings.push({ file: child, line: 1, severity: 'warning', message: 'broken symlink; skipped' })
            continue
          }
          if (isDir) visit(child, depth + 1)
        }
      }
    }
    const before = dirs.length
    visit(root, 0)
    if (!capped && dirs.length === before && !findings.some((f) => isInside(root, f.file))) {
      findings.push({ file: root, line: 1, severity: 'error', message: `no ${SKILL_FILE} in this folder or its subfolders` })
    }
  }
  if (capped) {
    findings.push({ file: roots.join(', '), line: 1, severity: skipped, message: `stopped at ${options.maxSkills} skills` })
  }
  return { dirs, findings }
}

/** The name a skill must carry: its real folder's, so a symlinked alias doesn't rename it. */
export function folderName(dir: SkillDir): string {
  return basename(dir.real)
}
