import { withPlane, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { formatFinding } from '../../../sources/agent-skills/index.js'

/** One row per entry of every kind of source (a kind with none says so), then their problems and findings. */
export async function sources(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const report = await withPlane(o, async (plane) => plane.sources(), { connectMcp: true })
  if (o.json) return console.log(JSON.stringify(report, null, 2))
  const kinds = Object.entries(report)
  console.log(
    formatTable(
      ['SOURCE', 'NAME', 'STATE', 'SKILLS', 'DETAILS'],
      kinds.flatMap(([kind, source]) =>
        source.entries.length === 0
          ? [[kind, '-', 'none', String(source.skills.length), '']]
          : source.entries.map((entry) => [kind, entry.name, entry.state, String(entry.skills.length), details(entry.details)]),
      ),
    ),
  )
  for (const [kind, source] of kinds) {
    for (const entry of source.entries) {
      if (entry.reason) console.log(`${kind} ${entry.name}: ${entry.reason}`)
      for (const problem of entry.problems) console.log(`${kind} ${entry.name}: ${problem}`)
    }
    for (const finding of source.findings) console.log(formatFinding(finding))
  }
}

// What spans lines (an MCP server's stderr) is for --json.
function details(values: Record<string, string | null>): string {
  return Object.entries(values)
    .filter((pair): pair is [string, string] => pair[1] !== null && !pair[1].includes('\n'))
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ')
}
