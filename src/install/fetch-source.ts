import { createWriteStream, existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream } from 'node:stream/web'
import { isInside } from '../system/index.js'
import { ArchiveError, BundleError, SourceError } from './bundle-error.js'
import { copyTree, type LeftOut } from './copy-tree.js'
import { DEFAULT_ARCHIVE_LIMITS, extractArchive, formatBytes, maxArchiveBytes, type ArchiveLimits } from './extract-archive.js'
import type { ParsedSource } from './parse-source.js'
import { checkHost, type NetworkAccess } from './network-access.js'
import { resolveGitUrl } from './resolve-git-url.js'
import { runGit } from './run-git.js'

/** A source fetched into a temporary folder; dispose() removes it. */
export interface FetchedSource {
  source: ParsedSource
  /** The fetched tree: the repository's checkout, the extracted archive or the copied folder. */
  root: string
  /** Where skills are looked for: the root, or the source's subpath in it. */
  base: string
  /** A temporary folder of its own, for staging what will be installed. */
  work: string
  /** The commit checked out (git sources). */
  commit: string | null
  /** The archive's SHA-256 and size (archive sources). */
  archive: { sha256: string; bytes: number } | null
  /** What copying a local folder left out (symlinks out of it, special files). */
  leftOut: LeftOut[]
  dispose(): void
}

export interface FetchOptions extends NetworkAccess {
  limits?: Partial<ArchiveLimits>
}

const FULL_SHA = /^[0-9a-f]{40}$/i
const SHORT_SHA = /^[0-9a-f]{7,39}$/i
const DOWNLOAD_TIMEOUT_MS = 5 * 60_000
const MAX_REDIRECTS = 10

/** Fetch a parsed source: git through the system git, archives over HTTP(S) with a size limit, folders copied. */
export async function fetchSource(source: ParsedSource, options: FetchOptions = {}): Promise<FetchedSource> {
  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits }
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'skillplane-fetch-')))
  const dispose = () => rmSync(dir, { recursive: true, force: true })
  try {
    const root = join(dir, 'tree')
    const fetched: Omit<FetchedSource, 'base' | 'dispose'> = { source, root, work: join(dir, 'work'), commit: null, archive: null, leftOut: [] }
    if (source.kind === 'git') fetched.commit = await cloneAt(await resolveGitUrl(source.location, options), source.ref, root, options.allowRedirects ?? false)
    else if (source.kind === 'folder') fetched.leftOut = copyTree(source.location, root, limits)
    else {
      const file = source.kind === 'archive-file' ? source.location : join(dir, 'archive')
      if (source.kind === 'archive-url') await download(source.location, file, maxArchiveBytes(limits), options)
      const report = await extractArchive(file, root, limits)
      fetched.archive = { sha256: report.sha256, bytes: report.bytes }
    }
    return { ...fetched, base: subfolder(root, source), dispose }
  } catch (error) {
    dispose()
    throw error
  }
}

/** Check out url at ref (default branch when null) into dir; the commit checked out. */
async function cloneAt(url: string, ref: string | null, dir: string, followRedirects: boolean): Promise<string> {
  const cwd = tmpdir()
  const git = (args: string[], where: string) => runGit(args, where, { followRedirects })
  if (ref && FULL_SHA.test(ref)) {
    await git(['init', '-q', dir], cwd)
    await git(['remote', 'add', '--', 'origin', url], dir)
    // Servers that don't hand out a commit by id get the whole history fetched instead.
    await git(['fetch', '-q', '--depth', '1', 'origin', ref], dir).catch(() => git(['fetch', '-q', '--tags', 'origin'], dir))
    await checkout(dir, ref)
  } else if (ref && SHORT_SHA.test(ref)) {
    await git(['clone', '-q', '--no-checkout', '--', url, dir], cwd)
    await checkout(dir, ref)
  } else {
    await git(['clone', '-q', '--depth', '1', ...(ref ? ['--branch', ref] : []), '--', url, dir], cwd)
  }
  return runGit(['rev-parse', 'HEAD'], dir)
}

async function checkout(dir: string, ref: string): Promise<void> {
  try {
    await runGit(['checkout', '-q', '--detach', `${ref}^{commit}`], dir)
  } catch {
    throw new BundleError(`the repository has no commit ${ref}`)
  }
}

function subfolder(root: string, source: ParsedSource): string {
  if (!source.subpath) return root
  const path = join(root, source.subpath)
  if (!existsSync(path) || !statSync(path).isDirectory() || !isInside(realpathSync.native(root), realpathSync.native(path)))
    throw new SourceError(`${source.subpath} is not a folder in ${source.source}${source.ref ? ` at ${source.ref}` : ''}`)
  return path
}

async function download(url: string, file: string, maxBytes: number, access: NetworkAccess): Promise<void> {
  const deadline = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)
  let response: Response | undefined
  let at = url
  // Redirects are followed one by one, each hop's host checked: archive hosts hand downloads to other origins.
  for (let hop = 0; hop <= MAX_REDIRECTS && response === undefined; hop++) {
    await checkHost(at, access)
    let answer: Response
    try {
      answer = await fetch(at, { redirect: 'manual', signal: deadline })
    } catch (error) {
      throw new BundleError(
        `can't download ${url}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
      )
    }
    const location = answer.headers.get('location')
    if (answer.status >= 300 && answer.status < 400 && location !== null) {
      await answer.body?.cancel()
      at = new URL(location, at).href
    } else response = answer
  }
  if (response === undefined) throw new BundleError(`can't download ${url}: more than ${MAX_REDIRECTS} redirects`)
  if (!response.ok || !response.body)
    throw new BundleError(`can't download ${url}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`)
  const length = Number(response.headers.get('content-length'))
  const tooBig = (size: string) => new ArchiveError(null, `it is ${size}, more than the limit of ${formatBytes(maxBytes)}`)
  if (length > maxBytes) {
    await response.body.cancel()
    throw tooBig(formatBytes(length))
  }
  let received = 0
  const bound = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length
      done(received > maxBytes ? tooBig(`over ${formatBytes(maxBytes)}`) : null, chunk)
    },
  })
  await pipeline(Readable.fromWeb(response.body as ReadableStream), bound, createWriteStream(file))
}
