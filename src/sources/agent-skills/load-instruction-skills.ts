import type { Finding } from './finding.js'
import { SkillFileCache } from './skill-file-cache.js'
import { checkFrontMatter, type SkillFrontMatter } from './check-front-matter.js'
import { findSkillDirs, folderName, type FindOptions, DEFAULT_FIND } from './find-skill-dirs.js'

/** An instruction skill: a SKILL.md folder an agent activates, as opposed to an executable skill. */
export interface InstructionSkill extends SkillFrontMatter {
  /** The folder's real path. */
  dir: string
  /** SKILL.md or SKILL.md.template. */
  file: string
  template: boolean
  /** The front matter block as loaded (exports render the body under it). */
  head: string
  body: string
  bodyLine: number
}

/**
 * Load skill folders leniently, per the specification's advice: breaches become warnings and the
 * skill still loads; a missing description, unparseable front matter or a missing SKILL.md skips
 * it with an error naming the file and line. The first root to define a name wins.
 */
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
    // Its error findings say why (no description, no usable name): it is skipped.
    if (!checked.frontMatter) continue
    const skill: InstructionSkill = {
      ...checked.frontMatter,
      dir: dir.real,
      file: dir.file,
      template: dir.template,
      head: parsed.parsed.head,
      body: parsed.parsed.body,
      bodyLine: parsed.parsed.bodyLine,
    }
    const first = byName.get(skill.name)
    if (first) {
      findings.push({
        file: dir.file,
        line: parsed.parsed.keyLines.name ?? 1,
        severity: 'warning',
        message: `skill "${skill.name}" is shadowed by ${first.file}, found first; skipped`,
      })
      continue
    }
    byName.set(skill.name, skill)
    skills.push(skill)
  }
  return { skills, findings }
}
