import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Finding } from './finding.js'
import { isInside } from '../fs/is-inside.js'

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
 * Skill folders under each root: a root that holds SKILL.md is one skill, otherwise its
 * subfolders are searched (skipping .git and node_modules) down to a depth and up to a count.
 * Symlinked folders are followed only when they resolve inside the root they were found in.
 */
export function findSkillDirs(roots: readonly string[], options: FindOptions = DEFAULT_FIND): { dirs: SkillDir[]; findings: Finding[] } {
  const dirs: SkillDir[] = []
  const findings: Finding[] = []
  const seen = new Set<string>()
  for (const root of roots) {
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      findings.push({ file: root, line: 1, severity: 'error', message: 'not a directory' })
      continue
    }
    const realRoot = realpathSync(root)
    const visit = (path: string, depth: number): void => {
      if (dirs.length >= options.maxSkills) return
      let real: string
      try {
        real = realpathSync(path)
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
      const file = [SKILL_FILE, TEMPLATE_FILE].find((f) => existsSync(join(path, f)))
      if (file === SKILL_FILE && existsSync(join(path, TEMPLATE_FILE))) {
        findings.push({ file: join(path, TEMPLATE_FILE), line: 1, severity: 'warning', message: `ignored: ${SKILL_FILE} is in the same folder` })
      }
      if (!file) {
        const misnamed = safeList(path).find((entry) => entry.toLowerCase() === 'skill.md')
        if (misnamed) {
          findings.push({ file: join(path, misnamed), line: 1, severity: 'error', message: `the file must be named ${SKILL_FILE}, not ${misnamed}; skipped` })
          return
        }
      }
      if (file) {
        dirs.push({ path, real, file: join(path, file), template: file === TEMPLATE_FILE })
        return
      }
      if (depth >= options.maxDepth) return
      let entries: string[]
      try {
        entries = readdirSync(path)
      } catch (error) {
        findings.push({ file: path, line: 1, severity: 'warning', message: `can't list: ${(error as NodeJS.ErrnoException).code}` })
        return
      }
      for (const entry of entries.sort()) {
        if (SKIP.has(entry)) continue
        const child = join(path, entry)
        let isDir = false
        try {
          isDir = statSync(child).isDirectory()
        } catch {
          isDir = false
        }
        if (isDir) visit(child, depth + 1)
      }
    }
    const before = dirs.length
    visit(root, 0)
    if (dirs.length === before && !findings.some((f) => isInside(root, f.file))) {
      findings.push({ file: root, line: 1, severity: 'error', message: `no ${SKILL_FILE} in this folder or its subfolders` })
    }
  }
  if (dirs.length >= options.maxSkills) {
    findings.push({ file: roots.join(', '), line: 1, severity: 'warning', message: `stopped at ${options.maxSkills} skills` })
  }
  return { dirs, findings }
}

function safeList(path: string): string[] {
  try {
    return readdirSync(path)
  } catch {
    return []
  }
}

/** The name a skill must carry: its real folder's, so a symlinked alias doesn't rename it. */
export function folderName(dir: SkillDir): string {
  return basename(dir.real)
}
