export { AuditWriter } from './audit-writer.js'
export { redact, REDACTED } from './redact.js'
export { toAuditEntry, type AuditEntry } from './audit-entry.js'
export { parseAuditQuery, type AuditQueryParse } from './parse-audit-query.js'
