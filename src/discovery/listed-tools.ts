import { DISCOVER_KEY } from './discovery.js'

/**
 * The tools a surface lists for a caller. Up to `threshold` callable skills, every one of them
 * (discover_skills is not needed then); above it, discover_skills and the configured core set,
 * the rest found by discovery.
 */
export function listedTools<T extends { skill: { key: string } }>(
  callable: T[],
  options: { toolThreshold: number; coreTools: string[] },
): { tools: T[]; deferred: boolean } {
  const others = callable.filter((entry) => entry.skill.key !== DISCOVER_KEY)
  if (others.length <= options.toolThreshold) return { tools: others, deferred: false }
  const core = new Set([DISCOVER_KEY, ...options.coreTools])
  return { tools: callable.filter((entry) => core.has(entry.skill.key)), deferred: true }
}
