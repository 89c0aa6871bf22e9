import { withPlane, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { formatFinding } from '../../../sources/agent-skills/index.js'

/**
 * One row per entry of every kind of source (a kind with none says so), then each entry's details,
 * reason and problems, and each kind's findings. Names come last: paths don't shift the columns.
 */
export async function sources(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const report = await withPlane(o, async (plane) => plane.sources.report(), { connectMcp: true })
  if (o.json) return console.log(JSON.stringify(report, null, 2))
  const kinds = Object.entries(report)
  console.log(
    formatTable(
      ['SOURCE', 'STATE', 'SKILLS', 'NAME'],
      kinds.flatMap(([kind, source]) =>
        source.entries.length === 0
          ? [[kind, 'none', String(source.skills.length), '-']]
          : source.entries.map((entry) => [kind, entry.state, String(entry.skills.length), entry.name]),
      ),
    ),
  )
  const notes = kinds.flatMap(([kind, source]) => [
    ...source.entries.flatMap((entry) => {
      const said = details(entry.details)
      return [...(said ? [said] : []), ...(entry.reason ? [entry.reason] : []), ...entry.problems].map((line) => `${kind} ${entry.name}: ${line}`)
    }),
    ...source.findings.map(formatFinding),
  ])
  if (notes.length > 0) console.log(`\n${notes.join('\n')}`)
}

// What spans lines (an MCP server's stderr) is for --json.
function details(values: Record<string, string | null>): string {
  return Object.entries(values)
    .filter((pair): pair is [string, string] => pair[1] !== null && !pair[1].includes('\n'))
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')
}
