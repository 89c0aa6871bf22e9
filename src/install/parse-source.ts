import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SourceError } from './bundle-error.js'

/** What the lockfile records as `sourceType` (the `skills` CLI's names where it has one). */
export type SourceType = 'github' | 'gitlab' | 'git' | 'local' | 'archive'

/** A SOURCE argument understood: where to fetch from and how the lockfile names it. */
export interface ParsedSource {
  kind: 'git' | 'archive-url' | 'archive-file' | 'folder'
  /** git: the clone URL; archive-url: the URL; archive-file and folder: the absolute path. */
  location: string
  /** git only: the branch, tag or commit to check out (null: the default branch). */
  ref: string | null
  /** A folder inside the repository or archive to look for skills in (null: all of it). */
  subpath: string | null
  /** The lockfile's `source`: OWNER/REPO for GitHub, else the URL or path. */
  source: string
  sourceType: SourceType
}

const ARCHIVE = /\.(zip|tar\.gz|tgz)$/i
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i
const SCP = /^\w[\w.-]*@\w[\w.-]*:(?!\/\/)/
const SHORTHAND = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9_.-]+?)(?:\.git)?((?:\/[^#]*)?)(?:#(.*))?$/
const REF = /^[A-Za-z0-9._/@+-]+$/
const HELP = 'give a git URL (https://…, ssh://…, git@HOST:…, file://…), OWNER/REPO for GitHub, a local folder, or a .zip, .tar.gz or .tgz URL or file'

/** The form of SOURCE, checked without touching the network; `cwd` resolves relative paths. */
export function parseSource(input: string, cwd = process.cwd()): ParsedSource {
  return parse(input, cwd)
}

/**
 * A SOURCE sent over HTTP: network sources only. A path or file:// URL names the server's own
 * disk, which is the CLI's on that machine; nothing here looks at the disk.
 */
export function parseRemoteSource(input: string): ParsedSource {
  return parse(input, null)
}

function parse(input: string, cwd: string | null): ParsedSource {
  const text = input.trim()
  if (text === '') throw new SourceError(`no SOURCE given: ${HELP}`)
  // git would read it as an option.
  if (text.startsWith('-')) throw new SourceError(`"${text}" starts with "-": ${HELP}`)
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  const onDisk = `"${text}" is a path on the server: over HTTP give a git URL, OWNER/REPO or an archive URL, or upload the bundle`
  if (scheme === 'file' && cwd === null) throw new SourceError(onDisk)
  if (scheme !== undefined) return parseUrl(text, scheme)
  if (SCP.test(text)) return git(...splitRef(text), null, 'git')
  const pathLike = /^(\/|\.\.?(\/|$)|~(\/|$))/.test(text)
  if (cwd === null && pathLike) throw new SourceError(onDisk)
  if (cwd !== null && (pathLike || existsSync(resolve(cwd, text)))) return parsePath(text, cwd)
  const short = SHORTHAND.exec(text)
  if (short && short[2] !== '.' && short[2] !== '..') {
    const [, owner, repo, rest, ref] = short
    return github(owner!, repo!, ref === undefined ? null : checkRef(ref, text), checkSubpath(rest!.replace(/^\/+|\/+$/g, ''), text))
  }
  throw new SourceError(`"${text}" is not a source: ${HELP}`)
}

function parseUrl(text: string, scheme: string): ParsedSource {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new SourceError(`"${text}" is not a valid URL`)
  }
  if (scheme === 'file') {
    const path = fileURLToPath(url)
    return ARCHIVE.test(path) ? parsePath(path, '/') : git(text.replace(/#.*$/, ''), url.hash ? checkRef(url.hash.slice(1), text) : null, null, 'git')
  }
  if (scheme === 'http' || scheme === 'https') {
    // The source is written to the lockfile and printed: a credential in it would be too.
    if (url.username || url.password)
      throw new SourceError(
        `"${url.host}${url.pathname}" carries credentials in its URL, which would land in the lockfile: use git's credential helper instead`,
      )
    if (ARCHIVE.test(url.pathname)) {
      url.hash = ''
      return { kind: 'archive-url', location: url.href, ref: null, subpath: null, source: url.href, sourceType: 'archive' }
    }
    const ref = url.hash ? checkRef(url.hash.slice(1), text) : null
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
    if (url.hostname === 'github.com') {
      const [owner, repo, kind, treeRef, ...rest] = parts
      if (owner && repo && parts.length === 2) return github(owner, repo.replace(/\.git$/, ''), ref, null)
      if (owner && repo && kind === 'tree' && treeRef) return github(owner, repo, checkRef(treeRef, text), checkSubpath(rest.join('/'), text))
      throw new SourceError(`"${text}" is not a GitHub repository URL: use https://github.com/OWNER/REPO or https://github.com/OWNER/REPO/tree/REF/PATH`)
    }
    // GitLab and its kind: …/OWNER/REPO/-/tree/REF/PATH names a folder at a ref.
    const dash = parts.indexOf('-')
    const repoUrl = (path: string[]) => `${url.origin}/${path.map(encodeURIComponent).join('/')}.git`.replace(/\.git\.git$/, '.git')
    if (dash > 0 && parts[dash + 1] === 'tree' && parts[dash + 2])
      return git(repoUrl(parts.slice(0, dash)), checkRef(parts[dash + 2]!, text), checkSubpath(parts.slice(dash + 3).join('/'), text), 'gitlab')
    // The skills CLI names gitlab.com repositories `gitlab`, by the URL ending in .git.
    if (url.hostname === 'gitlab.com' && dash < 0 && parts.length >= 2) return git(repoUrl(parts), ref, null, 'gitlab')
    url.hash = ''
    return git(url.href, ref, null, 'git')
  }
  if (scheme === 'ssh' || scheme === 'git' || scheme === 'git+ssh') return git(...splitRef(text), null, 'git')
  throw new SourceError(`"${text}" uses ${scheme}://, which skillplane doesn't fetch: ${HELP}`)
}

function parsePath(text: string, cwd: string): ParsedSource {
  const path = text === '~' || text.startsWith('~/') ? resolve(homedir(), text.slice(2)) : isAbsolute(text) ? resolve(text) : resolve(cwd, text)
  if (!existsSync(path)) throw new SourceError(`no such folder or file: ${path}`)
  const stat = statSync(path)
  if (stat.isDirectory()) return { kind: 'folder', location: path, ref: null, subpath: null, source: path, sourceType: 'local' }
  if (stat.isFile() && ARCHIVE.test(path)) return { kind: 'archive-file', location: path, ref: null, subpath: null, source: path, sourceType: 'archive' }
  throw new SourceError(`${path} is not a folder or a .zip, .tar.gz or .tgz archive`)
}

function github(owner: string, repo: string, ref: string | null, subpath: string | null): ParsedSource {
  return { ...git(`https://github.com/${owner}/${repo}.git`, ref, subpath, 'github'), source: `${owner}/${repo}` }
}

function git(url: string, ref: string | null, subpath: string | null, sourceType: 'github' | 'gitlab' | 'git'): ParsedSource {
  return { kind: 'git', location: url, ref, subpath, source: url, sourceType }
}

/** The source at a pinned branch, tag or commit (`--pin`): git sources only, and not at two refs. */
export function pinSource(source: ParsedSource, pin: string): ParsedSource {
  if (source.kind !== 'git')
    throw new SourceError(`--pin applies to git sources only, and ${source.location} is ${source.kind === 'folder' ? 'a folder' : 'an archive'}`)
  if (source.ref !== null && source.ref !== pin) throw new SourceError(`the source names the ref "${source.ref}" and --pin names "${pin}": give one`)
  return { ...source, ref: checkRef(pin, '--pin') }
}

// `URL#REF`: the `skills` CLI writes a source at a ref this way.
function splitRef(text: string): [string, string | null] {
  const hash = text.indexOf('#')
  return hash < 0 ? [text, null] : [text.slice(0, hash), checkRef(text.slice(hash + 1), text)]
}

/** A branch, tag or commit that can't be mistaken for an option or leave the ref namespace. */
export function checkRef(ref: string, where: string): string {
  if (!REF.test(ref) || ref.startsWith('-') || ref.includes('..') || ref.endsWith('/') || ref.endsWith('.lock'))
    throw new SourceError(`"${ref}" (in ${where}) is not a branch, tag or commit name`)
  return ref
}

function checkSubpath(path: string, where: string): string | null {
  if (path === '') return null
  if (path.split('/').some((part) => part === '..' || part === '.' || part === ''))
    throw new SourceError(`the path "${path}" (in ${where}) must stay inside the repository`)
  return path
}
