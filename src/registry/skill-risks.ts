/** How worrying a risk finding is, least first. */
export const RISK_LEVELS = ['info', 'warning', 'high'] as const
export type RiskLevel = (typeof RISK_LEVELS)[number]

/** Something a skill's files do that a person should know before it is installed (a script piping curl into sh, say). */
export interface RiskFinding {
  level: RiskLevel
  /** A stable id of the rule that matched, such as `remote-exec`. */
  rule: string
  /** The file inside the skill's folder, with `/` separators. */
  file: string
  /** The 1-based line, for findings in text files. */
  line?: number
  message: string
}

/** Whether any finding is at `level` or above. */
export function riskLevelAtLeast(findings: readonly RiskFinding[], level: RiskLevel): boolean {
  const floor = RISK_LEVELS.indexOf(level)
  return findings.some((f) => RISK_LEVELS.indexOf(f.level) >= floor)
}

/** The stored column back into findings; none when nothing was recorded. */
export function parseRisks(text: string | null | undefined): RiskFinding[] {
  if (!text) return []
  const value = JSON.parse(text) as unknown
  return Array.isArray(value) ? (value as RiskFinding[]) : []
}
