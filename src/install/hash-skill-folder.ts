import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

/** A skill folder's content: its `computedHash` and, per file, its own SHA-256. */
export interface SkillFolderHash {
  /** The `skills` CLI's computeSkillFolderHash, as the lockfile stores it. */
  computedHash: string
  /** Relative path (with `/`) → SHA-256 of the content, for every regular file. */
  files: Record<string, string>
  /** Relative path → link text, for every symlink (the lockfile's hash leaves them out). */
  links: Record<string, string>
}

/** Folders a skill's hash (and so its install) leaves out, as the `skills` CLI does. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules'])

/**
 * Hash a skill folder the way the `skills` CLI (vercel-labs/skills, computeSkillFolderHash in
 * src/local-lock.ts) does: every regular file below it (folders named .git and node_modules
 * skipped, symlinks neither followed nor hashed), relative paths with `/` sorted with
 * localeCompare, then one SHA-256 over each path followed by its content. An installed copy holds
 * its source's symlinks as files (as the CLI installs them): `fromLinks` names those, so its
 * computedHash leaves them out as the source's does; `files` still lists them.
 */
export function hashSkillFolder(dir: string, fromLinks: readonly string[] = []): SkillFolderHash {
  const paths: string[] = []
  const links: Record<string, string> = {}
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const rel = prefix + entry.name
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(join(folder, entry.name), `${rel}/`)
      } else if (entry.isFile()) paths.push(rel)
      else if (entry.isSymbolicLink()) links[rel] = readlinkSync(join(folder, entry.name))
    }
  }
  walk(dir, '')
  paths.sort((a, b) => a.localeCompare(b))
  const leftOut = new Set(fromLinks)
  const whole = createHash('sha256')
  const files: Record<string, string> = {}
  for (const path of paths) {
    const content = readFileSync(join(dir, path))
    if (!leftOut.has(path)) {
      whole.update(path)
      whole.update(content)
    }
    files[path] = createHash('sha256').update(content).digest('hex')
  }
  return { computedHash: whole.digest('hex'), files, links }
}

/** What differs between two states of a skill folder, each list sorted. */
export interface FileDiff {
  added: string[]
  removed: string[]
  changed: string[]
}

export function diffSkillFolders(before: Pick<SkillFolderHash, 'files' | 'links'>, after: Pick<SkillFolderHash, 'files' | 'links'>): FileDiff {
  const entries = (state: Pick<SkillFolderHash, 'files' | 'links'>) =>
    new Map([
      ...Object.entries(state.files).map(([p, h]) => [p, `file:${h}`] as const),
      ...Object.entries(state.links).map(([p, t]) => [p, `link:${t}`] as const),
    ])
  const was = entries(before)
  const now = entries(after)
  const sorted = (list: string[]) => list.sort((a, b) => a.localeCompare(b))
  return {
    added: sorted([...now.keys()].filter((p) => !was.has(p))),
    removed: sorted([...was.keys()].filter((p) => !now.has(p))),
    changed: sorted([...now.keys()].filter((p) => was.has(p) && was.get(p) !== now.get(p))),
  }
}

export function isEmptyDiff(diff: FileDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length === 0
}
