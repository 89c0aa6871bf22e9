/** One validation or loading finding, reported as `file:line: severity: message`. */
export interface Finding {
  file: string
  line: number
  severity: 'error' | 'warning'
  message: string
}

export function formatFinding(f: Finding): string {
  return `${f.file}:${f.line}: ${f.severity}: ${f.message}`
}
