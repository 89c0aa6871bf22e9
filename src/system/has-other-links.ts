import type { Stats } from 'node:fs'

/**
 * Whether a regular file has more than one name: a hard link inside a skill folder can name a file
 * from anywhere on the disk, and no path check tells them apart, so such files are never served.
 */
export function hasOtherLinks(stat: Stats): boolean {
  return stat.isFile() && stat.nlink > 1
}
