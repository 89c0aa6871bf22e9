import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readSync, closeSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { extract as tarExtract } from 'tar-stream'
import yauzl, { type Entry as ZipEntry, type ZipFile } from 'yauzl'
import { isInside } from '../system/index.js'
import { ArchiveError } from './bundle-error.js'

/** What one archive may hold: per file, in all, and how many entries. */
export interface ArchiveLimits {
  maxFileBytes: number
  maxTotalBytes: number
  maxFiles: number
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxFileBytes: 25 * 1024 * 1024, maxTotalBytes: 100 * 1024 * 1024, maxFiles: 10_000 }

export interface ExtractedFile {
  /** Relative to the extraction folder, with `/`. */
  path: string
  size: number
  sha256: string
}

export interface ExtractReport {
  format: 'zip' | 'tar.gz'
  /** The archive file's own SHA-256 and size. */
  sha256: string
  bytes: number
  files: ExtractedFile[]
  /** Symlinks kept, each resolving inside the extraction folder. */
  links: Array<{ path: string; target: string }>
}

type Kind = 'file' | 'directory' | 'symlink'
interface Member {
  name: string
  kind: Kind | { refused: string }
  mode: number
  content: () => Promise<Readable>
  /** A symlink's target: tar keeps it in the header, zip in the content. */
  target: () => Promise<string>
}

/**
 * Extract a zip or gzip-compressed tar (told apart by their first bytes) into `dest`, which must
 * not exist yet. Refused, with an ArchiveError naming the entry, and `dest` removed: absolute
 * paths, `..`, hard links, device files, fifos, symlinks that are absolute or resolve outside
 * `dest` (checked the way the kernel follows them, after every entry is written), and anything
 * past the limits. Nothing is ever written through a symlink: links are made last.
 */
export async function extractArchive(file: string, dest: string, limits: Partial<ArchiveLimits> = {}): Promise<ExtractReport> {
  const limit = { ...DEFAULT_ARCHIVE_LIMITS, ...limits }
  if (existsSync(dest)) throw new ArchiveError(null, `the folder to extract into, ${dest}, exists already`)
  const bytes = statSync(file).size
  if (bytes > maxArchiveBytes(limit)) throw new ArchiveError(null, `it is ${formatBytes(bytes)}, more than the limit of ${formatBytes(maxArchiveBytes(limit))}`)
  const format = archiveFormat(file)
  mkdirSync(dest, { recursive: true })
  try {
    const extraction = new Extraction(realpathSync.native(dest), limit)
    await (format === 'zip' ? readZip(file, extraction) : readTar(file, extraction, limit))
    const links = extraction.finish()
    return { format, sha256: await sha256File(file), bytes, files: extraction.files, links }
  } catch (error) {
    rmSync(dest, { recursive: true, force: true })
    throw error
  }
}

class Extraction {
  readonly files: ExtractedFile[] = []
  readonly #links: Array<{ path: string; target: string }> = []
  readonly #seen = new Set<string>()
  #total = 0
  #folders = 0

  constructor(
    readonly root: string,
    readonly limit: ArchiveLimits,
  ) {}

  async add(member: Member): Promise<void> {
    const path = entryPath(member.name)
    if (typeof member.kind !== 'string') throw new ArchiveError(member.name, member.kind.refused)
    if (path === null) {
      if (member.kind === 'directory') return
      throw new ArchiveError(member.name, 'it has no name once normalised')
    }
    if (this.#seen.has(path)) throw new ArchiveError(member.name, 'the same path appears twice')
    this.#seen.add(path)
    if (member.kind === 'directory') {
      if (++this.#folders > this.limit.maxFiles)
        throw new ArchiveError(member.name, `more than the limit of ${this.limit.maxFiles.toLocaleString('en-US')} folders`)
      this.#fs(member.name, () => mkdirSync(join(this.root, path), { recursive: true }))
      return
    }
    if (this.files.length + this.#links.length >= this.limit.maxFiles)
      throw new ArchiveError(member.name, `more than the limit of ${this.limit.maxFiles.toLocaleString('en-US')} files`)
    if (member.kind === 'symlink') {
      const target = await member.target()
      if (target === '' || target.includes('\0')) throw new ArchiveError(member.name, 'a symlink without a usable target')
      this.#links.push({ path, target })
      return
    }
    const full = join(this.root, path)
    this.#fs(member.name, () => mkdirSync(dirname(full), { recursive: true }))
    const hash = createHash('sha256')
    let size = 0
    const count = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        size += chunk.length
        this.#total += chunk.length
        if (size > this.limit.maxFileBytes)
          return done(new ArchiveError(member.name, `larger than the limit of ${formatBytes(this.limit.maxFileBytes)} a file`))
        if (this.#total > this.limit.maxTotalBytes)
          return done(new ArchiveError(member.name, `the files add up to more than the limit of ${formatBytes(this.limit.maxTotalBytes)}`))
        hash.update(chunk)
        done(null, chunk)
      },
    })
    const executable = (member.mode & 0o111) !== 0
    try {
      await pipeline(await member.content(), count, createWriteStream(full, { flags: 'wx', mode: executable ? 0o755 : 0o644 }))
    } catch (error) {
      if (error instanceof ArchiveError) throw error
      throw new ArchiveError(member.name, `can't be written: ${(error as Error).message}`)
    }
    this.files.push({ path, size, sha256: hash.digest('hex') })
  }

  /** Make the symlinks, now that every file and folder is in place, and confine each. */
  finish(): Array<{ path: string; target: string }> {
    for (const link of this.#links) {
      if (isAbsolute(link.target)) throw new ArchiveError(link.path, `a symlink to an absolute path (${link.target})`)
      if (!isInside(this.root, resolve(this.root, dirname(link.path), link.target)))
        throw new ArchiveError(link.path, `a symlink that leads out of the bundle (to ${link.target})`)
      const under = [...this.#seen].find((path) => path.startsWith(`${link.path}/`))
      if (under) throw new ArchiveError(under, `it lies under the symlink ${link.path}`)
      const full = join(this.root, link.path)
      this.#fs(link.path, () => {
        mkdirSync(dirname(full), { recursive: true })
        symlinkSync(link.target, full)
      })
    }
    // Only now can a link be followed the way the kernel will: through the other links (the native
    // realpath; Node's own settles `..` before following a link, as the kernel does not).
    for (const link of this.#links) {
      let real: string
      try {
        real = realpathSync.native(join(this.root, link.path))
      } catch (error) {
        throw new ArchiveError(link.path, `a symlink that points at nothing in the bundle (${link.target}: ${(error as NodeJS.ErrnoException).code})`)
      }
      if (!isInside(this.root, real)) throw new ArchiveError(link.path, `a symlink that resolves outside the bundle (to ${link.target})`)
    }
    return this.#links.sort((a, b) => a.path.localeCompare(b.path))
  }

  #fs(entry: string, action: () => void): void {
    try {
      action()
    } catch (error) {
      throw new ArchiveError(
        entry,
        `can't be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} (another entry's path is in the way)`,
      )
    }
  }
}

/** A member's path relative to the bundle, `/`-separated; null for the root itself. */
function entryPath(name: string): string | null {
  if (name.includes('\0')) throw new ArchiveError(name, 'a NUL character in its name')
  if (name.includes('\\')) throw new ArchiveError(name, 'a backslash in its name')
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ArchiveError(name, 'an absolute path')
  const parts = name.split('/').filter((part) => part !== '' && part !== '.')
  if (parts.includes('..')) throw new ArchiveError(name, '".." leads out of the bundle')
  return parts.length === 0 ? null : parts.join('/')
}

/** zip or gzip-compressed tar, told apart by their first bytes; anything else is refused. */
export function archiveFormat(file: string): 'zip' | 'tar.gz' {
  const head = Buffer.alloc(4)
  const fd = openSync(file, 'r')
  try {
    readSync(fd, head, 0, 4, 0)
  } finally {
    closeSync(fd)
  }
  if (head[0] === 0x50 && head[1] === 0x4b) return 'zip'
  if (head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz'
  throw new ArchiveError(null, 'it is neither a zip nor a gzip-compressed tar')
}

async function readTar(file: string, extraction: Extraction, limit: ArchiveLimits): Promise<void> {
  const tar = tarExtract()
  // Anything far past the files' own limit is a decompression bomb.
  const maxStream = maxArchiveBytes(limit)
  let streamed = 0
  const bound = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      streamed += chunk.length
      if (streamed > maxStream) return done(new ArchiveError(null, `it unpacks to more than ${formatBytes(maxStream)}`))
      done(null, chunk)
    },
  })
  const feeding = pipeline(createReadStream(file), createGunzip(), bound, tar)
  feeding.catch(() => {})
  try {
    for await (const entry of tar) {
      const { header } = entry
      await extraction.add({
        name: header.name,
        kind: tarKind(header.type),
        mode: header.mode ?? 0o644,
        content: async () => entry as unknown as Readable,
        target: async () => header.linkname ?? '',
      })
      entry.resume()
    }
    await feeding
  } catch (error) {
    tar.destroy()
    const cause = await feeding.then(
      () => error,
      (streamError: unknown) => streamError,
    )
    const first = error instanceof ArchiveError ? error : cause
    if (first instanceof ArchiveError) throw first
    throw new ArchiveError(null, `not a readable tar.gz: ${(first as Error).message}`)
  }
}

function tarKind(type: string | null | undefined): Member['kind'] {
  switch (type) {
    case 'file':
    case 'contiguous-file':
    case undefined:
    case null:
      return 'file'
    case 'directory':
      return 'directory'
    case 'symlink':
      return 'symlink'
    case 'link':
      return { refused: 'a hard link (it could name any file on the disk)' }
    case 'character-device':
    case 'block-device':
      return { refused: `a ${type.replace('-', ' ')} file` }
    case 'fifo':
      return { refused: 'a fifo' }
    default:
      return { refused: `an entry of type ${type}; only files, folders and symlinks are allowed` }
  }
}

async function readZip(file: string, extraction: Extraction): Promise<void> {
  let zip: ZipFile
  try {
    zip = await new Promise<ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, opened) =>
        error ? reject(error) : resolve(opened),
      ),
    )
  } catch (error) {
    throw new ArchiveError(null, `not a readable zip: ${(error as Error).message}`)
  }
  // An error while no read is waiting must not go unheard (an EventEmitter throws it).
  let failed: Error | null = null
  zip.on('error', (error: Error) => (failed ??= error))
  const next = () =>
    new Promise<ZipEntry | null>((resolve, reject) => {
      if (failed) return reject(failed)
      const done = () => {
        zip.off('entry', onEntry)
        zip.off('end', onEnd)
        zip.off('error', onError)
      }
      const onEntry = (entry: ZipEntry) => (done(), resolve(entry))
      const onEnd = () => (done(), resolve(null))
      const onError = (error: Error) => (done(), reject(error))
      zip.on('entry', onEntry)
      zip.on('end', onEnd)
      zip.on('error', onError)
      zip.readEntry()
    })
  try {
    for (let entry = await next(); entry; entry = await next()) {
      const raw = entry.fileName as unknown as Buffer
      const name = raw.toString('utf8')
      const current = entry
      const open = () => new Promise<Readable>((resolve, reject) => zip.openReadStream(current, (error, stream) => (error ? reject(error) : resolve(stream))))
      const unix = entry.versionMadeBy >> 8 === 3
      const mode = unix ? (entry.externalFileAttributes >>> 16) & 0xffff : 0
      await extraction.add({
        name,
        kind: zipKind(entry, name, unix ? mode : 0),
        mode: mode & 0o777,
        content: open,
        target: async () => readSmall(await open(), name),
      })
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw error
    throw new ArchiveError(null, `not a readable zip: ${(error as Error).message}`)
  } finally {
    zip.close()
  }
}

function zipKind(entry: ZipEntry, name: string, mode: number): Member['kind'] {
  if (entry.isEncrypted()) return { refused: 'it is encrypted' }
  const type = mode & 0o170000
  if (type === 0) return name.endsWith('/') ? 'directory' : 'file'
  if (type === 0o100000) return 'file'
  if (type === 0o040000) return 'directory'
  if (type === 0o120000) return 'symlink'
  if (type === 0o020000 || type === 0o060000) return { refused: `a ${type === 0o020000 ? 'character' : 'block'} device file` }
  if (type === 0o010000) return { refused: 'a fifo' }
  return { refused: `an entry of file type 0o${type.toString(8)}; only files, folders and symlinks are allowed` }
}

async function readSmall(stream: Readable, entry: string): Promise<string> {
  let text = ''
  for await (const chunk of stream) {
    text += String(chunk)
    if (text.length > 4096) throw new ArchiveError(entry, 'a symlink target longer than 4096 bytes')
  }
  return text
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The most an archive (or its tar stream) may take: its files' limit, plus headers and padding for as many files as it may hold. */
export function maxArchiveBytes(limit: ArchiveLimits): number {
  return limit.maxTotalBytes + limit.maxFiles * 3 * 512 + 1024 * 1024
}

/** 26214400 → "25 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes.toLocaleString('en-US')} bytes`
}
