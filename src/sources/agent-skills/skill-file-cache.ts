import { readFileSync, statSync } from 'node:fs'
import { parseSkillMd, type ParseResult } from './parse-skill-md.js'
import { hasOtherLinks } from '../../system/index.js'

/**
 * Parsed SKILL.md files by path, reused while a file's modification time and size are unchanged:
 * a reload after one file changes re-parses only that file.
 */
export class SkillFileCache {
  readonly #entries = new Map<string, { mtimeMs: number; size: number; parsed: ParseResult }>()
  /** Files parsed (not served from the cache) since the last reset. */
  parses = 0

  parse(file: string): ParseResult | { ok: false; line: number; message: string; unreadable: true } {
    let stat
    try {
      stat = statSync(file)
    } catch (error) {
      return { ok: false, line: 1, message: `can't read: ${(error as NodeJS.ErrnoException).code}`, unreadable: true }
    }
    if (hasOtherLinks(stat))
      return { ok: false, line: 1, message: `has ${stat.nlink} hard links, so it may be a file from outside the skill's folder: not loaded`, unreadable: true }
    const cached = this.#entries.get(file)
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.parsed
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      return { ok: false, line: 1, message: `can't read: ${(error as NodeJS.ErrnoException).code}`, unreadable: true }
    }
    this.parses++
    const parsed = parseSkillMd(text)
    this.#entries.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, parsed })
    return parsed
  }
}
