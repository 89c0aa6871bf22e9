import { realpathSync } from 'node:fs'
import { relative, sep } from 'node:path'
import { loadInstructionSkills, validateSkills, type Finding } from '../sources/agent-skills/index.js'
import { isInside } from '../system/index.js'

/** A skill found in a fetched source. */
export interface DiscoveredSkill {
  name: string
  description: string
  /** Its folder (real path) in the fetched tree. */
  dir: string
  /** Its SKILL.md (or SKILL.md.template) relative to the source's root, with `/`: the lockfile's skillPath. */
  skillPath: string
  /** What `skills validate` says about its files, paths relative to the source's root. */
  findings: Finding[]
}

/**
 * The SKILL.md folders under `base` (nested ones included), as the loader would load them, each
 * with the strict `skills validate` findings for its files. Findings about folders that won't load
 * (no description, a shadowed name, …) come separately; every path is shown relative to `root`.
 */
export function discoverSkills(root: string, base: string): { skills: DiscoveredSkill[]; findings: Finding[] } {
  const realRoot = realpathSync(root)
  const show = (path: string) => {
    for (const top of [realRoot, root]) if (isInside(top, path)) return relative(top, path).split(sep).join('/') || '.'
    return path
  }
  const shown = (finding: Finding): Finding => ({ ...finding, file: show(finding.file) })
  const loaded = loadInstructionSkills([base])
  const strict = validateSkills([base])
  // A SKILL.md that is a symlink out of its folder would be installed without it (and read from elsewhere now).
  const outside = loaded.skills.filter((skill) => !isInside(skill.dir, safeReal(skill.file)))
  loaded.skills = loaded.skills.filter((skill) => !outside.includes(skill))
  const refused = outside.map((skill): Finding => ({ file: skill.file, line: 1, severity: 'error', message: `a symlink out of the skill's folder; skipped` }))
  // A finding belongs to the deepest loaded skill whose folder holds its file.
  const owner = (file: string) => loaded.skills.filter((skill) => isInside(skill.dir, safeReal(file))).sort((a, b) => b.dir.length - a.dir.length)[0]
  const skills = loaded.skills.map((skill) => ({
    name: skill.name,
    description: skill.description,
    dir: skill.dir,
    skillPath: show(skill.file),
    findings: strict.findings.filter((f) => owner(f.file) === skill).map(shown),
  }))
  return { skills, findings: [...refused, ...loaded.findings.filter((f) => !owner(f.file) || f.message.endsWith('; skipped'))].map(shown) }
}

// A finding may name a file that doesn't exist (a missing root); its path is compared as it is.
function safeReal(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
