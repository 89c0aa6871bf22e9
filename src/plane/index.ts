export { createPlane } from './create-plane.js'
export type { Plane, PlaneOptions, FinishedCall } from './plane.js'
export type { SourcesReport } from './skill-sources.js'
export type { ShareOutcome } from './share-skill.js'
