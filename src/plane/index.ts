export { createPlane, openPlane } from './create-plane.js'
export type {
  Plane,
  PlaneOptions,
  FinishedCall,
  PlaneSkills,
  PlaneAgents,
  PlaneApprovals,
  PlanePolicies,
  PlaneAudit,
  PlanePeople,
  PlaneValues,
  PlaneSources,
  PlaneStatus,
} from './plane.js'
export type { SourcesReport } from './skill-sources.js'
export type { ShareOutcome } from './share-skill.js'
export type { InstallOutcome, InstallReport, InstallRequest, RollbackOutcome } from './install-skills.js'
export { recordInstalls } from './record-installs.js'
