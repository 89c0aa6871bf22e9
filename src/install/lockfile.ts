import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { LockfileError } from './bundle-error.js'

export const LOCKFILE_NAME = 'skills-lock.json'
const VERSION = 1

/** One skill as `skills-lock.json` records it; fields another tool wrote are kept as they are. */
export interface LockEntry {
  /** OWNER/REPO for GitHub, else the git URL, folder or archive it came from. */
  source: string
  /** The URL to clone, for git and GitLab sources (the `skills` CLI clones these from it). */
  sourceUrl?: string
  /** The branch, tag or commit it was installed at, when one was asked for. */
  ref?: string
  sourceType: string
  /** Where its SKILL.md is in the source, with `/` (none for a local folder, as the `skills` CLI writes it). */
  skillPath?: string
  /** hashSkillFolder's computedHash of its files. */
  computedHash: string
  [field: string]: unknown
}

/**
 * The fields skillplane writes, in the order the `skills` CLI writes them (its projectLockEntry in
 * skills 1.7.4): an entry in another order would be rewritten by each tool in turn.
 */
export const LOCK_FIELDS = ['source', 'sourceUrl', 'ref', 'sourceType', 'skillPath', 'computedHash'] as const

/** An entry with the `skills` CLI's fields in its order, the ones without a value left out. */
export function lockEntry(fields: Pick<LockEntry, (typeof LOCK_FIELDS)[number]>): LockEntry {
  const entry: Record<string, string> = {}
  for (const field of LOCK_FIELDS) if (fields[field] !== undefined) entry[field] = fields[field]
  return entry as LockEntry
}

/** The `skills` CLI's project lockfile: version 1, skills by name. */
export interface Lockfile {
  version: number
  skills: Record<string, LockEntry>
}

/** The lockfile at path; a missing file is an empty one. */
export function readLockfile(path: string): Lockfile {
  if (!existsSync(path)) return { version: VERSION, skills: {} }
  let data: unknown
  try {
    data = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new LockfileError(`${path} is not valid JSON: ${(error as Error).message}`)
  }
  return parseLockfile(data, path)
}

export function parseLockfile(data: unknown, where: string): Lockfile {
  const object = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
  if (!object(data)) throw new LockfileError(`${where}: a lockfile is a JSON object with "version" and "skills"`)
  if (typeof data.version !== 'number') throw new LockfileError(`${where}: "version" must be a number`)
  if (data.version > VERSION) throw new LockfileError(`${where}: version ${data.version} is newer than the version ${VERSION} skillplane reads`)
  if (!object(data.skills)) throw new LockfileError(`${where}: "skills" must be an object of skills by name`)
  for (const [name, entry] of Object.entries(data.skills)) {
    if (!object(entry)) throw new LockfileError(`${where}: skills.${name} must be an object`)
    for (const field of ['source', 'sourceType', 'computedHash'])
      if (typeof entry[field] !== 'string' || entry[field] === '') throw new LockfileError(`${where}: skills.${name}.${field} must be a non-empty string`)
    for (const field of ['sourceUrl', 'ref', 'skillPath'])
      if (entry[field] !== undefined && typeof entry[field] !== 'string') throw new LockfileError(`${where}: skills.${name}.${field} must be a string`)
  }
  return data as unknown as Lockfile
}

/** The file's text as the `skills` CLI writes it: skills sorted by name, two-space JSON, a final newline. */
export function formatLockfile(lock: Lockfile): string {
  const skills: Record<string, LockEntry> = {}
  for (const name of Object.keys(lock.skills).sort()) skills[name] = lock.skills[name]!
  return JSON.stringify({ version: lock.version, skills }, null, 2) + '\n'
}

/** Write it whole or not at all: a reader never sees half a lockfile. */
export function writeLockfile(path: string, lock: Lockfile): void {
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, formatLockfile(lock))
  renameSync(temporary, path)
}
