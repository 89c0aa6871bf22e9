export { AuditWriter } from './audit-writer.js'
export { redact, markSecretFields, REDACTED } from './redact.js'
export { toAuditEntry, type AuditEntry } from './audit-entry.js'
export { parseAuditQuery, parseAuditExport, auditExportSchema, EXPORT_MAX_ROWS, type AuditQueryParse } from './parse-audit-query.js'
export { AuditEvents, SYSTEM_ACTOR, type Actor, type AuditEvent } from './audit-events.js'
export { AuditBacklog } from './audit-backlog.js'
export { auditQuerySchema, auditHistogramSchema } from './parse-audit-query.js'
export { planHistogram, fillHistogram, type Histogram, type HistogramBucket } from './audit-histogram.js'
export { scrubText, scrubValue } from './redact.js'
export { secretForms } from './secret-forms.js'
export { AuditRetention, type RetentionPolicy, type SweepReport } from './audit-retention.js'
export { auditReader, type AuditReader } from './audit-reader.js'
export {
  healthReader,
  planWindow,
  tileWindow,
  statsQuerySchema,
  statsSeriesDimSchema,
  statsSeriesQuerySchema,
  STATS_WINDOWS,
  STATS_SORTS,
  type HealthReader,
  type StatsRow,
  type StatsPoint,
  type StatsWindow,
  type StatsSort,
} from './call-health.js'
export { buildCallTree, hideSpans, MAX_TREE_SPANS, type CallTree, type Span } from './call-tree.js'
export { parseSubSpans, MAX_SUB_SPANS, type SubSpan } from './sub-span.js'
export { type AuditFilter } from './audit-reader.js'
export { AuditSearcher, searchWords, matchesWords, type SearchLabel } from './audit-search.js'
export { EXPORT_FORMATS, EXPORT_CONTENT_TYPES, CSV_COLUMNS, csvCell, exportHeader, exportLines, type ExportFormat } from './audit-export.js'
