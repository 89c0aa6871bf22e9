import type { SyncReport } from '../../../registry/index.js'
import { withPlane, type GlobalOptions } from '../open-plane.js'

export async function sync(options: GlobalOptions & { dryRun?: boolean; prune?: boolean; force?: boolean; json?: boolean }): Promise<void> {
  const sync = { dryRun: options.dryRun ?? false, prune: options.prune ?? false, force: options.force ?? false }
  const report = await withPlane(options, (plane) => plane.skills.sync(sync), {
    connectMcp: true,
  })
  if (options.json) console.log(JSON.stringify(report, null, 2))
  else printSyncReport(report)
}

export function printSyncReport(report: SyncReport, options: { quietWhenEmpty?: boolean } = {}): void {
  for (const change of report.changes) console.log(change.message)
  for (const warning of report.warnings) console.log(warning.message)
  if (options.quietWhenEmpty && report.changes.length === 0) return
  const verb = report.dryRun ? 'would change' : 'changed'
  const n = report.changes.length
  console.log(`sync: ${verb} ${n} ${n === 1 ? 'thing' : 'things'}, ${report.warnings.length} warning(s)${report.dryRun ? ' (dry run, nothing written)' : ''}`)
}
