import type { AuditEntry } from './audit-entry.js'

/** How audited calls are exported: JSON lines (the entries as GET /api/audit shows them) or CSV. */
export const EXPORT_FORMATS = ['jsonl', 'csv'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
}

/** CSV's fixed columns, in order; nested values (input, result) are JSON in their cell. */
export const CSV_COLUMNS: ReadonlyArray<[string, (e: AuditEntry) => unknown]> = [
  ['callId', (e) => e.callId],
  ['startedAt', (e) => e.startedAt],
  ['finishedAt', (e) => e.finishedAt],
  ['durationMs', (e) => e.durationMs],
  ['status', (e) => e.status],
  ['skill', (e) => e.skill],
  ['callerId', (e) => e.caller.id],
  ['callerName', (e) => e.caller.name],
  ['callerKind', (e) => e.caller.kind],
  ['callerRole', (e) => e.caller.role],
  ['agent', (e) => e.agent],
  ['conversationId', (e) => e.conversationId],
  ['edgeId', (e) => e.edgeId],
  ['edgeName', (e) => e.edgeName],
  ['errorCode', (e) => e.error?.code],
  ['errorMessage', (e) => e.error?.message],
  ['approvalId', (e) => e.approvalId],
  ['parentCallId', (e) => e.parentCallId],
  ['traceId', (e) => e.traceId],
  ['grantId', (e) => e.grantId],
  ['input', (e) => JSON.stringify(e.input)],
  ['result', (e) => (e.result === null ? null : JSON.stringify(e.result))],
]

/**
 * One CSV cell (RFC 4180: quoted when it holds a quote, comma or line break, quotes doubled). A
 * cell a spreadsheet would run as a formula (= + - @, tab, CR first) gets a leading apostrophe.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  let text = String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** What an export starts with: CSV's header line, nothing for JSON lines. */
export function exportHeader(format: ExportFormat): string {
  return format === 'csv' ? CSV_COLUMNS.map(([name]) => name).join(',') + '\r\n' : ''
}

/** A page of entries as export lines (CSV records end in CRLF, as RFC 4180 has them). */
export function exportLines(format: ExportFormat, entries: AuditEntry[]): string {
  if (format === 'jsonl') return entries.map((entry) => JSON.stringify(entry) + '\n').join('')
  return entries.map((entry) => CSV_COLUMNS.map(([, cell]) => csvCell(cell(entry))).join(',') + '\r\n').join('')
}
