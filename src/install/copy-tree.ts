import { copyFileSync, chmodSync, constants, mkdirSync, readdirSync, readlinkSync, realpathSync, statSync, symlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { isInside } from '../system/index.js'
import { ArchiveError } from './bundle-error.js'
import { formatBytes, type ArchiveLimits } from './extract-archive.js'
import { SKIPPED_FOLDERS } from './hash-skill-folder.js'

/** Something copyTree left out, and why. */
export interface LeftOut {
  /** Relative to the copied folder, with `/`. */
  path: string
  reason: string
}

export interface CopyOptions {
  /**
   * Write what each symlink points at instead of the link, as the `skills` CLI installs a skill (a
   * link to a folder becomes a copy of the folder). Default: keep each link, as a link.
   */
  dereference?: boolean
}

/**
 * Copy a folder: regular files (keeping whether they are executable), folders, and symlinks that
 * resolve inside `from` itself (checked as written and as the kernel follows them, with the native
 * realpath; kept relative, or copied as what they point at with `dereference`).
 * Anything else (links out of it, fifos, sockets, devices, a link to a folder that holds it) is left
 * out and reported; .git and node_modules are skipped. Past a limit, an ArchiveError names the file.
 */
export function copyTree(from: string, to: string, limits?: ArchiveLimits, options: CopyOptions = {}): LeftOut[] {
  const root = realpathSync.native(from)
  const leftOut: LeftOut[] = []
  let files = 0
  let total = 0
  const copyFile = (path: string, target: string, rel: string) => {
    const stat = statSync(path)
    files++
    total += stat.size
    if (limits) {
      if (files > limits.maxFiles) throw new ArchiveError(rel, `more than the limit of ${limits.maxFiles.toLocaleString('en-US')} files`)
      if (stat.size > limits.maxFileBytes) throw new ArchiveError(rel, `larger than the limit of ${formatBytes(limits.maxFileBytes)} a file`)
      if (total > limits.maxTotalBytes) throw new ArchiveError(rel, `the files add up to more than the limit of ${formatBytes(limits.maxTotalBytes)}`)
    }
    copyFileSync(path, target, constants.COPYFILE_EXCL)
    chmodSync(target, stat.mode & 0o111 ? 0o755 : 0o644)
  }
  // `chain` holds the real folders being copied, outermost first: a link back to one of them would copy forever.
  const walk = (source: string, dest: string, prefix: string, chain: string[]) => {
    mkdirSync(dest, { recursive: true })
    for (const entry of readdirSync(source, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = prefix + entry.name
      const path = join(source, entry.name)
      const target = join(dest, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(path, target, `${rel}/`, [...chain, join(chain.at(-1)!, entry.name)])
      } else if (entry.isFile()) {
        copyFile(path, target, rel)
      } else if (entry.isSymbolicLink()) {
        const text = readlinkSync(path)
        let real: string | null = null
        try {
          real = realpathSync.native(path)
        } catch {
          leftOut.push({ path: rel, reason: `a symlink that points at nothing (${text})` })
          continue
        }
        const written = resolve(chain.at(-1)!, text)
        if (!isInside(root, real) || (!isAbsolute(text) && !isInside(root, written))) {
          leftOut.push({ path: rel, reason: `a symlink that leads outside the folder (to ${text})` })
          continue
        }
        if (real === root) {
          leftOut.push({ path: rel, reason: `a symlink to the folder itself (${text})` })
          continue
        }
        if (!options.dereference) {
          // An absolute link would name the fetched copy, which is about to be deleted.
          symlinkSync(isAbsolute(text) ? relative(dirname(join(root, rel)), real) : text, target)
        } else if (statSync(real).isDirectory()) {
          if (chain.some((folder) => isInside(real, folder))) leftOut.push({ path: rel, reason: `a symlink to a folder that holds it (${text})` })
          else walk(real, target, `${rel}/`, [...chain, real])
        } else if (statSync(real).isFile()) {
          copyFile(real, target, rel)
        } else {
          leftOut.push({ path: rel, reason: `a symlink to something not a regular file or folder (${text})` })
        }
      } else {
        leftOut.push({ path: rel, reason: 'not a regular file, folder or symlink' })
      }
    }
  }
  walk(from, to, '', [root])
  return leftOut
}
