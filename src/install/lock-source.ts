import { isAbsolute, dirname, resolve } from 'node:path'
import { SourceError } from './bundle-error.js'
import type { LockEntry } from './lockfile.js'
import { checkRef, parseSource, type ParsedSource } from './parse-source.js'

/** Where a lockfile entry says its skill comes from, at its ref; relative paths are the lockfile's folder's. */
export function lockedSource(name: string, entry: LockEntry, lockfile: string): ParsedSource {
  const where = `skills.${name} in ${lockfile}`
  const ref = entry.ref === undefined ? null : checkRef(entry.ref, where)
  const local = (path: string) => (isAbsolute(path) || /^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? path : resolve(dirname(lockfile), path))
  switch (entry.sourceType) {
    case 'github': {
      if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(entry.source)) throw new SourceError(`${where}: a github source is OWNER/REPO, not "${entry.source}"`)
      return { kind: 'git', location: `https://github.com/${entry.source}.git`, ref, subpath: null, source: entry.source, sourceType: 'github' }
    }
    case 'git':
    case 'gitlab': {
      // The skills CLI clones from sourceUrl when there is one.
      const url = entry.sourceUrl ?? entry.source
      const parsed = parseSource(url)
      if (parsed.kind !== 'git') throw new SourceError(`${where}: "${url}" is not a git URL`)
      return { ...parsed, ref: ref ?? parsed.ref, subpath: null, source: entry.source, sourceType: entry.sourceType }
    }
    case 'local':
    case 'archive': {
      const parsed = parseSource(local(entry.source), dirname(lockfile))
      if (entry.sourceType === 'local' ? parsed.kind !== 'folder' : parsed.kind === 'git' || parsed.kind === 'folder')
        throw new SourceError(`${where}: "${entry.source}" is not ${entry.sourceType === 'local' ? 'a folder' : 'an archive'}`)
      return { ...parsed, source: entry.source }
    }
    default:
      throw new SourceError(`${where}: sourceType "${entry.sourceType}" is not one skillplane fetches (github, gitlab, git, local, archive)`)
  }
}
