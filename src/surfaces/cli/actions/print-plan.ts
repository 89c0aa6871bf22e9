import { formatFinding, type Finding } from '../../../sources/agent-skills/index.js'
import { describeDiff, isEmptyDiff, type FileDiff, type RiskFinding } from '../../../install/index.js'
import { formatTable } from '../format-table.js'

/** One skill of an install plan (from this process) or report (from a server), as printed. */
export interface PlanLine {
  name: string
  skillPath: string
  change: 'new' | 'update' | 'unchanged'
  diff: FileDiff | null
  /** Files and symlinks it installs. */
  files: number
  findings: Finding[]
  risks: RiskFinding[]
}

/** A risk finding after its skill's name: `scripts/setup.sh:3: pipes a download into an interpreter (remote-exec)`. */
export function riskText(risk: RiskFinding): string {
  return `${risk.file}${risk.line ? `:${risk.line}` : ''}: ${risk.message} (${risk.rule})`
}

/** The findings, each risk, and the table of what would change: printed before anything is installed. */
export function printPlanLines(findings: readonly Finding[], skills: readonly PlanLine[]): void {
  for (const finding of [...findings, ...skills.flatMap((s) => s.findings)]) console.log(formatFinding(finding))
  for (const skill of skills) for (const risk of skill.risks) console.log(`risk ${risk.level.padEnd(7)} ${skill.name}/${riskText(risk)}`)
  if (skills.length === 0) return
  console.log(
    formatTable(
      ['', 'SKILL', 'PATH', 'CHANGE'],
      skills.map((s) => [s.change === 'new' ? '+' : s.change === 'update' ? '~' : '=', s.name, s.skillPath, change(s)]),
    ),
  )
}

function change(skill: PlanLine): string {
  if (skill.change === 'new') return `new, ${skill.files} file${skill.files === 1 ? '' : 's'}`
  if (skill.change === 'unchanged') return 'unchanged'
  return !skill.diff || isEmptyDiff(skill.diff) ? 'same files, new lockfile entry' : describeDiff(skill.diff)
}
