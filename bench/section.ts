/** One line of results.md's table of targets. */
export interface TargetRow {
  target: string
  figure: string
  verdict: Verdict
  /** A fact (a size, a count, completeness) rather than a speed: the machine's load cannot excuse a miss. */
  fact?: boolean
}

export type Verdict = 'yes' | 'no' | 'not measurable here'

/** What a section hands the harness: its target rows and its markdown, below its heading. */
export interface SectionResult {
  targets: TargetRow[]
  body: string
}

/** A part of `npm run bench` that can run alone (`npm run bench -- NAME`) and whose figures are kept apart. */
export interface BenchSection {
  /** The name on the command line and of its file under bench/results/. */
  name: string
  /** Its heading in results.md. */
  title: string
  run(log: (line: string) => void): Promise<SectionResult>
}

export const verdict = (met: boolean): Verdict => (met ? 'yes' : 'no')

/** Target rows written as markdown table lines (`| target | figure | **yes** |`), as older sections make them. */
export function parseTargetRows(lines: string[], facts: RegExp = /$^/): TargetRow[] {
  return lines.map((line) => {
    const cells = line
      .replace(/^\|\s*/, '')
      .replace(/\s*\|\s*$/, '')
      .split(/\s+\|\s+/)
    if (cells.length !== 3) throw new Error(`a target row needs 3 cells, this one has ${cells.length}: ${line}`)
    const [target, figure, met] = cells as [string, string, string]
    const said = met.replace(/\*/g, '').trim()
    const v: Verdict = said === 'yes' ? 'yes' : said === 'no' ? 'no' : 'not measurable here'
    return { target, figure, verdict: v, ...(facts.test(target) ? { fact: true } : {}) }
  })
}
