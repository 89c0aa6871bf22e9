import { join, resolve } from 'node:path'
import { LOCKFILE_NAME } from './lockfile.js'

/** Where skills are installed, one folder each, and the lockfile that pins them. */
export interface InstallTarget {
  /** managed: under the data dir, loaded by the plane always; project: the project's `.agents/skills`. */
  kind: 'managed' | 'project'
  root: string
  lockfile: string
}

export function managedTarget(dataDir: string): InstallTarget {
  const dir = resolve(dataDir)
  return { kind: 'managed', root: join(dir, 'skills'), lockfile: join(dir, LOCKFILE_NAME) }
}

export function projectTarget(cwd = process.cwd()): InstallTarget {
  const dir = resolve(cwd)
  return { kind: 'project', root: join(dir, '.agents', 'skills'), lockfile: join(dir, LOCKFILE_NAME) }
}

/** The per-file manifest of a managed skill: beside its folder, so the folder's own hash leaves it out. */
export function manifestPath(target: InstallTarget, name: string): string {
  return join(target.root, `${name}.files.json`)
}
