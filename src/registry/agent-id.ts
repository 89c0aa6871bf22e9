/** An agent's id: the kebab-case slug of its name ("Fleet Autonomy" → "fleet-autonomy"). */
export function agentId(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug || 'agent'
}
