/**
 * The skills a discover_skills answer offers as tools, by key. An instruction skill is not a tool
 * (it is activated with activate_skill), and a value of another shape offers nothing.
 */
export function foundKeys(answer: unknown): string[] {
  const results = (answer as { results?: unknown } | null)?.results
  if (!Array.isArray(results)) return []
  return results
    .filter((r): r is { key: string; kind?: unknown } => typeof (r as { key?: unknown } | null)?.key === 'string')
    .filter((r) => r.kind !== 'instruction')
    .map((r) => r.key)
}
