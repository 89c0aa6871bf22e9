export { BundleError, SourceError, ArchiveError, LockfileError, IntegrityError } from './bundle-error.js'
export { parseSource, parseRemoteSource, pinSource, type ParsedSource, type SourceType } from './parse-source.js'
export { fetchSource, type FetchedSource, type FetchOptions } from './fetch-source.js'
export type { NetworkAccess } from './network-access.js'
export {
  extractArchive,
  archiveFormat,
  maxArchiveBytes,
  DEFAULT_ARCHIVE_LIMITS,
  formatBytes,
  type ArchiveLimits,
  type ExtractReport,
  type ExtractedFile,
} from './extract-archive.js'
export { copyTree, type LeftOut, type CopyOptions } from './copy-tree.js'
export { discoverSkills, type DiscoveredSkill } from './discover-skills.js'
export { hashSkillFolder, diffSkillFolders, isEmptyDiff, type SkillFolderHash, type FileDiff } from './hash-skill-folder.js'
export { readLockfile, writeLockfile, formatLockfile, parseLockfile, lockEntry, LOCKFILE_NAME, type Lockfile, type LockEntry } from './lockfile.js'
export { managedTarget, projectTarget, manifestPath, type InstallTarget } from './install-target.js'
export { readInstallManifest, type InstallManifest } from './install-manifest.js'
export { planInstall, type InstallPlan, type PlannedSkill, type PlanOptions } from './install-plan.js'
export { applyPlan, type ApplyOptions } from './apply-plan.js'
export { removeSkill } from './remove-skill.js'
export { lockedSource } from './lock-source.js'
export { planLocked, frozenMismatches, type LockedPlan, type LockedPlanOptions } from './plan-locked.js'
export { checkInstalledSkill, checkInstalledSkills, installedSkillCheck, installedFileCheck, describeDiff } from './check-installed.js'
export { scanRisks, risksNeedingAcceptance, ACCEPT_RISK_LEVEL, RISK_LEVELS, riskLevelAtLeast, type RiskFinding, type RiskLevel } from './scan-risks.js'
export { keepPrevious, keptVersion, dropKept, rollbackSkill, versionsRoot, type KeptVersion } from './skill-versions.js'
export { receiveUpload, keepUpload, dropUpload, uploadSource, pruneUploads, uploadsRoot, type ReceivedUpload } from './upload-store.js'
