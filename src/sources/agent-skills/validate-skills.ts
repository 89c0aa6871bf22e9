import { readFileSync } from 'node:fs'
import type { Finding } from './finding.js'
import { parseSkillMd } from './parse-skill-md.js'
import { checkFrontMatter } from './check-front-matter.js'
import { checkBody } from './check-body.js'
import { checkTemplate } from './render-template.js'
import { findSkillDirs, folderName, type FindOptions, DEFAULT_FIND } from './find-skill-dirs.js'

export interface ValidationReport {
  skills: number
  errors: number
  warnings: number
  findings: Finding[]
}

/** Apply the specification strictly, plus checks of the body and its links, to every skill under the paths. */
export function validateSkills(
  paths: readonly string[],
  options: FindOptions & { onProgress?: (done: number, total: number) => void } = DEFAULT_FIND,
): ValidationReport {
  // A skill the search leaves out is an error here: a tree is never reported clean while skills went unchecked.
  const found = findSkillDirs(paths, options, 'error')
  const findings: Finding[] = [...found.findings]
  found.dirs.forEach((dir, i) => {
    options.onProgress?.(i, found.dirs.length)
    let text: string
    try {
      text = readFileSync(dir.file, 'utf8')
    } catch (error) {
      findings.push({ file: dir.file, line: 1, severity: 'error', message: `can't read: ${(error as NodeJS.ErrnoException).code}` })
      return
    }
    const parsed = parseSkillMd(text)
    if (!parsed.ok) {
      findings.push({ file: dir.file, line: parsed.line, severity: 'error', message: parsed.message })
      return
    }
    findings.push(...checkFrontMatter(parsed.parsed, { file: dir.file, folderName: folderName(dir), strict: true }).findings)
    findings.push(...checkBody(parsed.parsed.body, parsed.parsed.bodyLine, { file: dir.file, dir: dir.path, real: dir.real }))
    if (dir.template) {
      const checked = checkTemplate(parsed.parsed.body, parsed.parsed.bodyLine)
      if (!checked.ok) findings.push({ file: dir.file, line: checked.line, severity: 'error', message: checked.message })
    }
  })
  options.onProgress?.(found.dirs.length, found.dirs.length)
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
  return {
    skills: found.dirs.length,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
    findings,
  }
}
