export { createPlane, openPlane } from './create-plane.js'
export type {
  Plane,
  PlaneOptions,
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
export type { ShareOutcome } from './share-skill.js'
