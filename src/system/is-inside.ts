import { sep } from 'node:path'

/** Whether path is root itself or lies below it (both resolved, so `..` and symlinks are settled first). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep)
}
