import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { hasOtherLinks } from '../fs/index.js'
import { TEMPLATE_FILE } from './find-skill-dirs.js'

const MAX_LISTED_FILES = 200

/** The skill folder's files (not SKILL.md itself), relative, sorted: an activation's resource list. */
export function listSkillFiles(dir: string): string[] {
  const files: string[] = []
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= MAX_LISTED_FILES || entry.name === '.git' || entry.name === 'node_modules') continue
      const full = join(path, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && !hasOtherLinks(statSync(full))) {
        const rel = relative(dir, full)
        if (rel !== 'SKILL.md' && entry.name !== TEMPLATE_FILE) files.push(rel)
      }
    }
  }
  walk(dir)
  return files
}
