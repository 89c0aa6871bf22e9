export { createPlane } from './create-plane.js'
export type { Plane, PlaneOptions, FinishedCall } from './plane.js'
export type { ShareOutcome } from './share-skill.js'
