import { accessSync, constants, statSync } from 'node:fs'
import { join } from 'node:path'

/** The first executable file named `name` in the folders of a PATH string, or null when none has it. */
export function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(':')) {
    if (!dir) continue
    const file = join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      if (statSync(file).isFile()) return file
    } catch {
      // Not in this folder.
    }
  }
  return null
}
