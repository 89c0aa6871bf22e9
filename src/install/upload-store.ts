import { createHash, randomUUID } from 'node:crypto'
import { createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ArchiveError } from './bundle-error.js'
import { archiveFormat, DEFAULT_ARCHIVE_LIMITS, formatBytes, maxArchiveBytes, type ArchiveLimits } from './extract-archive.js'
import type { InstallTarget } from './install-target.js'
import { readLockfile } from './lockfile.js'
import { keptVersion, versionsRoot } from './skill-versions.js'

/** An uploaded bundle as received: a file of its own in the store until it is kept under its SHA-256 or dropped. */
export interface ReceivedUpload {
  file: string
  sha256: string
  bytes: number
  format: 'zip' | 'tar.gz'
  /** Where it is kept once installed: `<sha256>.zip` or `<sha256>.tar.gz` in the store. */
  stored: string
}

/** Where uploaded bundles are kept: `<dataDir>/skill-uploads`, each named by its SHA-256. */
export function uploadsRoot(target: InstallTarget): string {
  return join(dirname(target.root), 'skill-uploads')
}

/**
 * Receive an uploaded bundle as it streams in, hashing it on the way: past the archive size limit,
 * empty, or neither zip nor tar.gz, it is refused and nothing is kept. The caller keeps it
 * (keepUpload) or drops it (dropUpload); received files are never pruned, kept ones are.
 */
export async function receiveUpload(target: InstallTarget, body: Readable, limits: Partial<ArchiveLimits> = {}): Promise<ReceivedUpload> {
  const max = maxArchiveBytes({ ...DEFAULT_ARCHIVE_LIMITS, ...limits })
  const root = uploadsRoot(target)
  mkdirSync(root, { recursive: true })
  const incoming = join(root, `.incoming-${randomUUID()}`)
  const hash = createHash('sha256')
  let bytes = 0
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length
      if (bytes > max) return done(new ArchiveError(null, `it is over ${formatBytes(max)}, the limit for a bundle`))
      hash.update(chunk)
      done(null, chunk)
    },
  })
  try {
    await pipeline(body, count, createWriteStream(incoming))
    if (bytes === 0) throw new ArchiveError(null, 'it is empty')
    const format = archiveFormat(incoming)
    const sha256 = hash.digest('hex')
    // Named as an archive, so it reads as one; the dot keeps it out of pruning.
    const file = `${incoming}.${format}`
    renameSync(incoming, file)
    return { file, sha256, bytes, format, stored: join(root, `${sha256}.${format}`) }
  } finally {
    rmSync(incoming, { force: true })
  }
}

/** Keep a received upload under its SHA-256 (the same bundle uploaded twice is kept once). */
export function keepUpload(upload: ReceivedUpload): void {
  if (existsSync(upload.stored)) rmSync(upload.file, { force: true })
  else renameSync(upload.file, upload.stored)
}

export function dropUpload(upload: ReceivedUpload): void {
  rmSync(upload.file, { force: true })
}

/** The lockfile's source for a stored upload: relative to the lockfile, so `skills install` restores it from the store. */
export function uploadSource(target: InstallTarget, file: string): string {
  return relative(dirname(target.lockfile), file).split(sep).join('/')
}

/** Delete stored uploads that neither the lockfile nor a kept version names; the names deleted. */
export function pruneUploads(target: InstallTarget): string[] {
  const root = uploadsRoot(target)
  if (!existsSync(root)) return []
  const lock = readLockfile(target.lockfile)
  const kept = existsSync(versionsRoot(target)) ? readdirSync(versionsRoot(target)).map((name) => keptVersion(target, name)?.lock) : []
  const named = new Set(
    [...Object.values(lock.skills), ...kept]
      .filter((entry) => entry?.sourceType === 'archive')
      .map((entry) => resolve(dirname(target.lockfile), entry!.source)),
  )
  const pruned: string[] = []
  // An upload cut off mid-request (the client hung up) is received no further: gone after an hour.
  const stale = Date.now() - 3_600_000
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('.incoming-') && statSync(join(root, entry)).mtimeMs < stale) rmSync(join(root, entry), { force: true })
    if (entry.startsWith('.') || named.has(join(root, entry))) continue
    rmSync(join(root, entry), { force: true })
    pruned.push(entry)
  }
  return pruned
}
