import { readFileSync, statSync } from 'node:fs'
import type { Finding } from './finding.js'
import { parseSkillMd, type ParseResult } from './parse-skill-md.js'
import { checkFrontMatter, type SkillFrontMatter } from './check-front-matter.js'
import { findSkillDirs, folderName, type FindOptions, DEFAULT_FIND } from './find-skill-dirs.js'

/** An instruction skill: a SKILL.md folder an agent activates, as opposed to an executable skill. */
export interface InstructionSkill extends SkillFrontMatter {
  /** The folder's real path. */
  dir: string
  /** SKILL.md or SKILL.md.template. */
  file: string
  template: boolean
  body: string
  bodyLine: number
}

/**
 * Load skill folders leniently, per the specification's advice: breaches become warnings and the
 * skill still loads; a missing description, unparseable front matter or a missing SKILL.md skips
 * it with an error naming the file and line. The first root to define a name wins.
 */
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

export function loadInstructionSkills(
  roots: readonly string[],
  options: FindOptions = DEFAULT_FIND,
  cache: SkillFileCache = new SkillFileCache(),
): { skills: InstructionSkill[]; findings: Finding[] } {
  const found = findSkillDirs(roots, options)
  const findings = [...found.findings]
  const skills: InstructionSkill[] = []
  const byName = new Map<string, InstructionSkill>()
  for (const dir of found.dirs) {
    const parsed = cache.parse(dir.file)
    if (!parsed.ok) {
      findings.push({ file: dir.file, line: parsed.line, severity: 'error', message: `${parsed.message}; skipped` })
      continue
    }
    const checked = checkFrontMatter(parsed.parsed, { file: dir.file, folderName: folderName(dir), strict: false })
    findings.push(...checked.findings)
    if (!checked.frontMatter) {
      findings.push({ file: dir.file, line: 1, severity: 'error', message: 'skipped: a skill needs a description' })
      continue
    }
    const skill: InstructionSkill = { ...checked.frontMatter, dir: dir.real, file: dir.file, template: dir.template, body: parsed.parsed.body, bodyLine: parsed.parsed.bodyLine }
    const first = byName.get(skill.name)
    if (first) {
      findings.push({ file: dir.file, line: parsed.parsed.keyLines.name ?? 1, severity: 'warning', message: `skill "${skill.name}" is shadowed by ${first.file}, found first; skipped` })
      continue
    }
    byName.set(skill.name, skill)
    skills.push(skill)
  }
  return { skills, findings }
}
