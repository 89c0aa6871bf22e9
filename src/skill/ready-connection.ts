import type { ConnectionState } from './skill-types.js'

/** The connection state of a skill that needs nothing, or has everything it needs. */
export const READY_CONNECTION: ConnectionState = Object.freeze({ state: 'ready', missing: Object.freeze({ secrets: [], settings: [] }) }) as ConnectionState
