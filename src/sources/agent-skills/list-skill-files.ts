import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { hasOtherLinks } from '../../system/index.js'
import { TEMPLATE_FILE } from './find-skill-dirs.js'

const MAX_LISTED_FILES = 200

// A file that vanished between listing and stat is left out.
const statOrNull = (path: string) => {
  try {
    return statSync(path)
  } catch {
    return null
  }
}

/** The skill folder's files (not SKILL.md itself), relative, sorted: an activation's resource list. */
export function listSkillFiles(dir: string): string[] {
  const files: string[] = []
  // A folder removed or changed on disk since loading lists what is still there, never throws:
  // surfaces list these outside the pipeline (MCP resources).
  const walk = (path: string) => {
    let entries
    try {
      entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))
    } catch {
      return
    }
    for (const entry of entries) {
      if (files.length >= MAX_LISTED_FILES || entry.name === '.git' || entry.name === 'node_modules') continue
      const full = join(path, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) {
        const stat = statOrNull(full)
        if (!stat || hasOtherLinks(stat)) continue
        const rel = relative(dir, full)
        if (rel !== 'SKILL.md' && entry.name !== TEMPLATE_FILE) files.push(rel)
      }
    }
  }
  walk(dir)
  return files
}
