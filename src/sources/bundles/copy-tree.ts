import { copyFileSync, chmodSync, constants, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { isInside } from '../fs/index.js'
import { ArchiveError } from './bundle-error.js'
import { formatBytes, type ArchiveLimits } from './extract-archive.js'
import { SKIPPED_FOLDERS } from './hash-skill-folder.js'

/** Something copyTree left out, and why. */
export interface LeftOut {
  /** Relative to the copied folder, with `/`. */
  path: string
  reason: string
}

/**
 * Copy a folder: regular files (keeping whether they are executable), folders, and symlinks that
 * resolve inside `from` itself (checked as written and as the kernel follows them, with the native
 * realpath; kept relative).
 * Anything else (links out of it, fifos, sockets, devices) is left out and reported; .git and
 * node_modules are skipped. Past a limit, an ArchiveError names the file.
 */
export function copyTree(from: string, to: string, limits?: ArchiveLimits): LeftOut[] {
  const root = realpathSync.native(from)
  const leftOut: LeftOut[] = []
  let files = 0
  let total = 0
  const walk = (source: string, dest: string, prefix: string) => {
    mkdirSync(dest, { recursive: true })
    for (const entry of readdirSync(source, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = prefix + entry.name
      const path = join(source, entry.name)
      const target = join(dest, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(path, target, `${rel}/`)
      } else if (entry.isFile()) {
        const stat = lstatSync(path)
        files++
        total += stat.size
        if (limits) {
          if (files > limits.maxFiles) throw new ArchiveError(rel, `more than the limit of ${limits.maxFiles.toLocaleString('en-US')} files`)
          if (stat.size > limits.maxFileBytes) throw new ArchiveError(rel, `larger than the limit of ${formatBytes(limits.maxFileBytes)} a file`)
          if (total > limits.maxTotalBytes) throw new ArchiveError(rel, `the files add up to more than the limit of ${formatBytes(limits.maxTotalBytes)}`)
        }
        copyFileSync(path, target, constants.COPYFILE_EXCL)
        chmodSync(target, stat.mode & 0o111 ? 0o755 : 0o644)
      } else if (entry.isSymbolicLink()) {
        const text = readlinkSync(path)
        let real: string | null = null
        try {
          real = realpathSync.native(path)
        } catch {
          leftOut.push({ path: rel, reason: `a symlink that points at nothing (${text})` })
          continue
        }
        const written = resolve(dirname(join(root, rel)), text)
        if (!isInside(root, real) || (!isAbsolute(text) && !isInside(root, written))) {
          leftOut.push({ path: rel, reason: `a symlink that leads outside the folder (to ${text})` })
          continue
        }
        if (real === root) {
          leftOut.push({ path: rel, reason: `a symlink to the folder itself (${text})` })
          continue
        }
        // An absolute link would name the fetched copy, which is about to be deleted.
        symlinkSync(isAbsolute(text) ? relative(dirname(join(root, rel)), real) : text, target)
      } else {
        leftOut.push({ path: rel, reason: 'not a regular file, folder or symlink' })
      }
    }
  }
  walk(from, to, '')
  return leftOut
}
