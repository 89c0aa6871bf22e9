// Installing skills from git, a folder or an upload into the data dir or the project, pinned in skills-lock.json.
export {
  SkillInstaller,
  type InstallOutcome,
  type InstallReport,
  type InstallRequest,
  type RollbackOutcome,
  type ApplyInstallOptions,
} from './skill-installer.js'
export { installedFolder } from './installed-folder.js'
export { BundleError, ArchiveError } from './bundle-error.js'
export { parseSource, parseRemoteSource, pinSource } from './parse-source.js'
export { fetchSource, type FetchedSource } from './fetch-source.js'
export type { NetworkAccess } from './network-access.js'
export { maxArchiveBytes, DEFAULT_ARCHIVE_LIMITS } from './extract-archive.js'
export { discoverSkills } from './discover-skills.js'
export { isEmptyDiff, type FileDiff } from './hash-skill-folder.js'
export { managedTarget, projectTarget, type InstallTarget } from './install-target.js'
export { planInstall, type InstallPlan, type PlannedSkill } from './install-plan.js'
export { removeSkill } from './remove-skill.js'
export { planLocked, frozenMismatches } from './plan-locked.js'
export { describeDiff } from './check-installed.js'
export { scanRisks, risksNeedingAcceptance, type RiskFinding } from './scan-risks.js'
export { receiveUpload, dropUpload, type ReceivedUpload } from './upload-store.js'
