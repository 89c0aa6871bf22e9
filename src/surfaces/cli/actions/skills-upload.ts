import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type { InstallOutcome, InstallReport } from '../../../install/index.js'

/** An install's outcome here, or as a server answered it (with its own error code). */
type UploadOutcome = InstallOutcome | { ok: false; code: string; message: string; report?: InstallReport }
import { BundleError, managedTarget, receiveUpload } from '../../../install/index.js'
import { CliError } from '../cli-error.js'
import { printPlanLines } from './print-plan.js'
import { localAdmin, withPlane, type GlobalOptions } from '../open-plane.js'

interface UploadOptions extends GlobalOptions {
  skill?: string[]
  dryRun?: boolean
  acceptRisk?: boolean
  server?: string
  json?: boolean
}

/**
 * Upload a bundle: to a running server (`--server`, with the admin key in SKILLPLANE_API_KEY) as
 * POST /api/skills/upload, or into this data dir the same way the route installs it.
 */
export async function skillsUpload(file: string, o: UploadOptions): Promise<void> {
  const path = resolve(file)
  if (!existsSync(path) || !statSync(path).isFile()) throw new CliError(`no such file: ${path}`)
  const outcome = o.server ? await uploadTo(o.server, path, o) : await uploadHere(path, o)
  const report = outcome.report
  if (o.json) console.log(JSON.stringify(outcome.ok ? report : { error: { code: outcome.code, message: outcome.message }, report: report ?? null }, null, 2))
  else if (report) printReport(report)
  if (!outcome.ok) throw new CliError(outcome.message)
  if (o.json) return
  if (outcome.report.dryRun) return console.log('dry run: nothing installed')
  const { installed, unchanged } = outcome.report
  console.log(installed.length > 0 ? `installed ${installed.join(', ')}` : `nothing to install: ${unchanged.join(', ')} installed already`)
}

async function uploadHere(path: string, o: UploadOptions): Promise<InstallOutcome> {
  return withPlane(o, async (plane) => {
    let upload
    try {
      upload = await receiveUpload(managedTarget(plane.status.dataDir), createReadStream(path))
    } catch (error) {
      if (error instanceof BundleError) throw new CliError(`${basename(path)}: ${error.message}`)
      throw error
    }
    return plane.skills.install({ from: { upload, filename: basename(path) }, skills: o.skill, dryRun: o.dryRun, acceptRisk: o.acceptRisk }, localAdmin())
  })
}

async function uploadTo(server: string, path: string, o: UploadOptions): Promise<UploadOutcome> {
  const key = process.env.SKILLPLANE_API_KEY
  if (!key) throw new CliError('--server needs an admin key in SKILLPLANE_API_KEY')
  let url: URL
  try {
    url = new URL('/api/skills/upload', server)
  } catch {
    throw new CliError(`--server: "${server}" is not a URL`)
  }
  const form = new FormData()
  if (o.skill && o.skill.length > 0) form.append('skills', o.skill.join(','))
  if (o.dryRun) form.append('dryRun', 'true')
  if (o.acceptRisk) form.append('acceptRisk', 'true')
  form.append('bundle', new Blob([readFileSync(path)]), basename(path))
  let response: Response
  try {
    response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })
  } catch (error) {
    throw new CliError(`can't reach ${url.origin}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`)
  }
  const body = (await response.json().catch(() => null)) as
    (InstallReport & { error?: undefined }) | { error: { code: string; message: string; details?: { report?: InstallReport } } } | null
  if (!body) throw new CliError(`${url.origin} answered HTTP ${response.status} without JSON`)
  if (body.error) return { ok: false, code: body.error.code, message: body.error.message, report: body.error.details?.report }
  return { ok: true, report: body as InstallReport }
}

function printReport(report: InstallReport): void {
  const { source, upload } = report
  console.log(`${upload ? `uploaded ${upload.filename}` : `fetched ${source.source}`} (sha256 ${(upload?.sha256 ?? source.archiveSha256 ?? '').slice(0, 12)})`)
  printPlanLines(
    report.findings,
    report.skills.map((s) => ({ ...s, files: Object.keys(s.files).length })),
  )
}

/** Put back the version an install or upload replaced; the current one is kept in its place. */
export async function skillsRollback(name: string, o: GlobalOptions): Promise<void> {
  const rolled = await withPlane(o, (plane) => plane.skills.rollback(name, localAdmin()))
  if (!rolled.ok) throw new CliError(rolled.message)
  console.log(`${name}: rolled back to ${rolled.restored.computedHash.slice(0, 12)} from ${rolled.restored.source}`)
  if (rolled.replaced) console.log(`kept ${rolled.replaced.computedHash.slice(0, 12)} (run skillplane skills rollback ${name} again to return to it)`)
}
