import cliProgress from 'cli-progress'
// The leaf modules, not the agent-skills face (which loads the whole runtime): validating needs no plane.
import { validateSkills } from '../../../sources/agent-skills/validate-skills.js'
import { formatFinding } from '../../../sources/agent-skills/finding.js'
import { checkInstalledSkills } from '../../../install/check-installed.js'
import { managedTarget } from '../../../install/install-target.js'
import { isInside } from '../../../system/index.js'
import { existsSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'

export function skillsValidate(given: string[], o: { json?: boolean; dataDir: string }): void {
  const installed = managedTarget(o.dataDir)
  const none = () =>
    !existsSync(installed.root) || !readdirSync(installed.root, { withFileTypes: true }).some((e) => e.isDirectory() && !e.name.startsWith('.'))
  if (given.length === 0 && none()) return console.log(`no skills are installed in ${installed.root}`)
  const paths = given.length > 0 ? given : [installed.root]
  // A bar only where someone watches a long run; pipes and CI get the plain report.
  const bar =
    process.stderr.isTTY && !o.json ? new cliProgress.SingleBar({ stream: process.stderr, clearOnComplete: true }, cliProgress.Presets.shades_classic) : null
  let started = false
  const report = validateSkills(paths, {
    maxDepth: 6,
    maxSkills: 100_000,
    onProgress: (done, total) => {
      if (!bar || total < 200) return
      if (!started) bar.start(total, 0)
      started = true
      bar.update(done)
    },
  })
  if (started) bar?.stop()
  // Skills installed under the data dir must also still be what the lockfile pins.
  const roots = paths.map((path) => resolve(path))
  const tampered = checkInstalledSkills(installed).filter((f) => roots.some((root) => isInside(root, f.file)))
  if (tampered.length > 0) {
    report.findings.push(...tampered)
    report.findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
    report.errors += tampered.length
  }
  if (o.json) console.log(JSON.stringify(report, null, 2))
  else {
    for (const finding of report.findings) console.log(formatFinding(finding))
    console.log(
      `${report.skills} skill${report.skills === 1 ? '' : 's'} checked: ${report.errors} error${report.errors === 1 ? '' : 's'}, ${report.warnings} warning${report.warnings === 1 ? '' : 's'}`,
    )
  }
  if (report.errors > 0) process.exitCode = 1
}
