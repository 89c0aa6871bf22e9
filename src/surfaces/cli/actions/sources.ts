import { withPlane, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { formatFinding } from '../../../sources/agent-skills/index.js'

export async function sources(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const report = await withPlane(o, async (plane) => plane.sources.report(), { connectMcp: true })
  if (o.json) return console.log(JSON.stringify(report, null, 2))
  if (report.mcp.length === 0) console.log('MCP servers: none configured')
  else {
    console.log(
      formatTable(
        ['MCP SERVER', 'TRANSPORT', 'STATE', 'SKILLS', 'TARGET'],
        report.mcp.map((s) => [s.name, s.transport, s.state, String(s.skills.length), s.target]),
      ),
    )
    for (const s of report.mcp) {
      if (s.reason) console.log(`${s.name}: ${s.reason}`)
      for (const problem of s.problems) console.log(`${s.name}: ${problem}`)
    }
  }
  if (report.openapi.length > 0) {
    console.log(
      `\n${formatTable(
        ['OPENAPI SOURCE', 'STATE', 'SKILLS', 'BASE URL'],
        report.openapi.map((s) => [s.name, s.state, String(s.skills.length), s.baseUrl ?? '-']),
      )}`,
    )
    for (const s of report.openapi) for (const problem of s.problems) console.log(`${s.name}: ${problem}`)
  }
  // The packs line follows the HTTP line directly, or a blank line when there is none.
  const http = report.http.skills.length > 0 || report.http.problems.length > 0
  console.log(http ? `\nHTTP skills: ${report.http.skills.length}` : '')
  for (const problem of report.http.problems) console.log(problem)
  console.log(`packs: ${report.packs.skills.length} from ${report.packs.dirs.join(', ') || '(no packDirs)'}`)
  for (const finding of report.packs.findings) console.log(formatFinding(finding))
  console.log(`instruction skills: ${report.instructions.skills.length} from ${report.instructions.dirs.join(', ') || '(no skillDirs)'}`)
  for (const finding of report.instructions.findings) console.log(formatFinding(finding))
}
