import { open, unlink, type FileHandle } from 'node:fs/promises'
import { once } from 'node:events'
import { resolve } from 'node:path'
import { withStore, type GlobalOptions } from '../open-plane.js'
import { CliError } from '../cli-error.js'
import { EXPORT_FORMATS, exportHeader, exportLines, type ExportFormat } from '../../../audit/index.js'

/** `audit export`: calls started in [--since, --until) as JSON lines or CSV, oldest first, a page at a time. */
export async function auditExport(o: GlobalOptions & { since?: string; until?: string; out?: string; format?: string }): Promise<void> {
  const format = (o.format ?? 'jsonl') as ExportFormat
  if (!EXPORT_FORMATS.includes(format)) throw new CliError(`--format: must be jsonl or csv, not ${JSON.stringify(o.format)}`)
  const since = instant('--since', o.since)
  const until = instant('--until', o.until)
  if (since && until && since >= until) throw new CliError(`--since (${since}) must be before --until (${until})`)
  const path = o.out === undefined ? undefined : resolve(o.out)
  const count = await withStore(o, async (plane) => {
    const file = path === undefined ? undefined : await create(path)
    let written = 0
    // A reader that goes away (`| head`) ends the export quietly, other stdout errors are reported; kept till exit.
    let stdoutError: NodeJS.ErrnoException | undefined
    const onStdoutError = (error: NodeJS.ErrnoException) => (stdoutError ??= error)
    if (!file) process.stdout.on('error', onStdoutError)
    const write = async (text: string) => {
      if (file) await file.write(text)
      else if (!process.stdout.write(text)) await once(process.stdout, 'drain').catch(() => {})
    }
    try {
      await write(exportHeader(format))
      for await (const page of plane.audit.pages({ ...(since && { since }), ...(until && { until }) })) {
        await write(exportLines(format, page))
        if (stdoutError) break
        written += page.length
      }
      if (stdoutError && stdoutError.code !== 'EPIPE') throw new CliError(`can't write to stdout: ${stdoutError.message}`)
      await file?.sync()
    } catch (error) {
      // A partial file would pass for a complete export.
      if (path !== undefined) await unlink(path).catch(() => {})
      throw error
    } finally {
      await file?.close()
    }
    return written
  })
  if (path !== undefined) process.stderr.write(`exported ${count} call${count === 1 ? '' : 's'} to ${path}\n`)
}

async function create(path: string): Promise<FileHandle> {
  try {
    // Never over an existing file: an earlier export may be the only copy of swept rows.
    return await open(path, 'wx', 0o600)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new CliError(code === 'EEXIST' ? `--out ${path} already exists: choose a new file` : `can't create --out ${path}: ${(error as Error).message}`)
  }
}

function instant(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new CliError(`${flag}: must be an ISO-8601 date or date-time (like 2026-01-31 or 2026-01-31T12:00:00Z), not ${JSON.stringify(value)}`)
  }
  return new Date(value).toISOString()
}
