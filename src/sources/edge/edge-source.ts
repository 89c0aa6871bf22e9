import type { Registry } from '../../registry/index.js'
import type { SkillSource } from '../skill-source/index.js'
import type { Edges } from './edges.js'

/** Host skills the enrolled edges offer, as a source: the registry holds one per key (see `Edges`). */
export function edgeSource(edges: () => Edges, registry: Registry): SkillSource {
  return {
    kind: 'edge',
    start: () => edges().refresh(),
    reload: () => edges().refresh(),
    report() {
      const registered = new Set(
        registry
          .list()
          .filter((s) => s.source === 'edge')
          .map((s) => s.key),
      )
      return {
        skills: [...registered].sort(),
        entries: edges()
          .list()
          .map((edge) => ({
            name: edge.name,
            state: edge.revokedAt ? 'revoked' : edge.online ? 'online' : 'offline',
            reason: null,
            skills: edge.skills.map((s) => s.key).filter((key) => registered.has(key)),
            problems: edge.skills.filter((s) => s.unavailableReason).map((s) => `${s.key}: ${s.unavailableReason}`),
            details: { hostname: edge.hostname, lastSeenAt: edge.lastSeenAt },
          })),
        findings: [],
      }
    },
    // The plane closes the edge hub in its own shutdown step: it holds tunnels and relays, not only skills.
    async close() {},
  }
}
