import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'
import { edgeLabels, type EdgeView } from '../../../sources/edge/index.js'
import { parseLabels } from '../parse-labels.js'

export async function edgesEnroll(o: GlobalOptions & { name: string; label?: string[]; secret?: string[]; expiresIn?: string; json?: boolean }): Promise<void> {
  const labels = parseLabels(o.label ?? [], edgeLabels)
  const result = await withStore(o, (plane) =>
    plane.sources.edges.enroll({ name: o.name, labels, secrets: o.secret ?? [], ...(o.expiresIn !== undefined && { expiresIn: o.expiresIn }) }, localAdmin()),
  )
  if (!result.ok) throw new CliError(result.message)
  if (o.json) return console.log(JSON.stringify({ edge: result.edge, token: result.token }, null, 2))
  console.log(`enrolled edge "${result.edge.name}" (id ${result.edge.id})`)
  printToken(result.edge, result.token)
}

export async function edgesRotate(idOrName: string, o: GlobalOptions & { expiresIn?: string; json?: boolean }): Promise<void> {
  const result = await withStore(o, (plane) => plane.sources.edges.rotate(idOrName, o.expiresIn !== undefined ? { expiresIn: o.expiresIn } : {}, localAdmin()))
  if (!result.ok) throw new CliError(result.message)
  if (o.json) return console.log(JSON.stringify({ edge: result.edge, token: result.token }, null, 2))
  console.log(`rotated the token of edge "${result.edge.name}" (id ${result.edge.id}): the old token no longer works`)
  printToken(result.edge, result.token)
}

function printToken(edge: EdgeView, token: string): void {
  console.log(`token (shown once${edge.tokenExpiresAt ? `, expires ${edge.tokenExpiresAt}` : ''}): ${token}`)
  console.log(`start it on the host: skillplane edge --manager URL --token ${token}`)
}

export async function edgesList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const edges = await withStore(o, async (plane) => plane.sources.edges.list())
  if (o.json) return console.log(JSON.stringify({ edges }, null, 2))
  if (edges.length === 0) return console.log('no edges: enroll one with skillplane edges enroll --name NAME')
  console.log(
    formatTable(
      ['NAME', 'ID', 'STATUS', 'HOST', 'LABELS', 'SKILLS', 'LAST SEEN'],
      edges.map((e) => [e.name, e.id, status(e), e.hostname ?? '-', labelText(e.labels), String(e.skills.length), e.lastSeenAt ?? 'never']),
    ),
  )
}

export async function edgesShow(idOrName: string, o: GlobalOptions & { json?: boolean }): Promise<void> {
  const edge = await withStore(o, async (plane) => plane.sources.edges.get(idOrName))
  if (!edge) throw new CliError(`no edge "${idOrName}"`)
  if (o.json) return console.log(JSON.stringify(edge, null, 2))
  console.log(`${edge.name} (${edge.id}) ${status(edge)}`)
  console.log(`  host: ${edge.hostname ?? '-'} · ${edge.os ?? '-'} · ${edge.arch ?? '-'} · skillplane ${edge.version ?? '-'}`)
  console.log(`  labels: ${labelText(edge.labels)}`)
  console.log(`  token expires: ${edge.tokenExpiresAt ?? 'never (until rotated or revoked)'}`)
  console.log(`  secrets it may receive: ${edge.secrets.length > 0 ? edge.secrets.join(', ') : 'none'}`)
  console.log(`  manager: ${edge.managerId ?? '-'} · connected since ${edge.connectedSince ?? '-'} · last seen ${edge.lastSeenAt ?? 'never'}`)
  if (edge.skills.length === 0) return console.log('  skills: none announced yet')
  console.log(
    formatTable(
      ['SKILL', 'CLASS', 'AVAILABLE'],
      edge.skills.map((s) => [s.key, s.class, s.available ? 'yes' : truncate(`no: ${s.unavailableReason}`, 70)]),
    )
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n'),
  )
}

export async function edgesSecrets(idOrName: string, names: string[], o: GlobalOptions & { none?: boolean; json?: boolean }): Promise<void> {
  if (o.none && names.length > 0) throw new CliError('give secret names or --none, not both')
  const edge = await withStore(o, async (plane) => {
    if (names.length === 0 && !o.none) return plane.sources.edges.get(idOrName) ?? null
    const result = await plane.sources.edges.grantSecrets(idOrName, names, localAdmin())
    if (!result.ok) throw new CliError(result.message)
    return result.edge
  })
  if (!edge) throw new CliError(`no edge "${idOrName}"`)
  if (o.json) return console.log(JSON.stringify({ name: edge.name, secrets: edge.secrets }, null, 2))
  console.log(`edge "${edge.name}" may receive: ${edge.secrets.length > 0 ? edge.secrets.join(', ') : 'no secrets'}`)
}

export async function edgesRevoke(idOrName: string, o: GlobalOptions): Promise<void> {
  const revoked = await withStore(o, (plane) => plane.sources.edges.revoke(idOrName, localAdmin()))
  if (!revoked) throw new CliError(`no enrolled edge "${idOrName}" (or it was revoked already)`)
  console.log(`revoked edge "${revoked.name}" (${revoked.id}): its token no longer works`)
}

function status(edge: EdgeView): string {
  return edge.revokedAt ? 'revoked' : edge.online ? 'online' : 'offline'
}

function labelText(labels: Record<string, string>): string {
  const entries = Object.entries(labels)
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '-'
}
