import type { InstalledFolder } from '../sources/agent-skills/index.js'
import { installedFileCheck, installedSkillCheck } from './check-installed.js'
import { managedTarget } from './install-target.js'

/** The data dir's installed skills as the SKILL.md source loads them: each held to its lockfile entry. */
export function installedFolder(dataDir: string): InstalledFolder {
  const target = managedTarget(dataDir)
  return { root: target.root, lockfile: target.lockfile, skillCheck: () => installedSkillCheck(target), fileCheck: installedFileCheck(target) }
}
