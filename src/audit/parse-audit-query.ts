import { z } from 'zod'
import { AUDIT_STATUSES } from '../store/index.js'
import type { AuditFilter } from './audit-reader.js'
import { searchWords } from './audit-search.js'
import { EXPORT_FORMATS } from './audit-export.js'

const instant = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO-8601 date or date-time' })
  .transform((s) => new Date(s).toISOString())

/** The audit filters, for the HTTP API's document too. */
export const auditQuerySchema = z.strictObject({
  skill: z.string().min(1).optional(),
  status: z.enum(AUDIT_STATUSES).optional(),
  agent: z.string().min(1).optional(),
  caller: z.string().min(1).optional(),
  edge: z.string().min(1).optional().describe('Edge id or name'),
  parentCallId: z.string().min(1).optional(),
  conversationId: z.string().min(1).optional().describe('only the calls of this conversation (an agent run is `run:<id>`)'),
  q: z
    .string()
    .max(200)
    .refine((s) => searchWords(s).length > 0, { message: 'must contain a letter or digit' })
    .optional()
    .describe('free text: calls whose skill, caller (id or name), agent (id, name or alias) or error message has every word, each as the start of a word'),
  traceId: z
    .string()
    .regex(/^[0-9a-f]{32}$/, 'must be a 32-hex-digit trace id')
    .optional(),
  from: instant.optional(),
  to: instant.optional(),
  cursor: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
})

export type AuditQueryParse = { ok: true; query: AuditFilter } | { ok: false; message: string }

/** Validate audit filters from a query string or CLI flags; errors name the parameter. */
export function parseAuditQuery(raw: Record<string, unknown>): AuditQueryParse {
  return parseWith(auditQuerySchema, raw)
}

/** The most rows one export writes; `limit` lowers it. */
export const EXPORT_MAX_ROWS = 1_000_000
const EXPORT_DEFAULT_ROWS = 100_000

/** An export's query: the list's filters (q too), a format and how many rows at most. */
export const auditExportSchema = auditQuerySchema.omit({ cursor: true, limit: true }).extend({
  format: z.enum(EXPORT_FORMATS, { error: 'must be jsonl or csv' }).default('jsonl'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(EXPORT_MAX_ROWS)
    .default(EXPORT_DEFAULT_ROWS)
    .describe(
      `the most calls written (default ${EXPORT_DEFAULT_ROWS.toLocaleString('en')}, at most ${EXPORT_MAX_ROWS.toLocaleString('en')}); the newest come first`,
    ),
})

export function parseAuditExport(raw: Record<string, unknown>): { ok: true; query: z.output<typeof auditExportSchema> } | { ok: false; message: string } {
  return parseWith(auditExportSchema, raw)
}

function parseWith<S extends z.ZodType>(schema: S, raw: Record<string, unknown>): { ok: true; query: z.output<S> } | { ok: false; message: string } {
  const defined = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined))
  const parsed = schema.safeParse(defined)
  if (!parsed.success) {
    return {
      ok: false,
      message: parsed.error.issues
        .map((i) => (i.code === 'unrecognized_keys' ? `unknown filter ${i.keys.join(', ')}` : `${i.path.join('.')}: ${i.message}`))
        .join('; '),
    }
  }
  return { ok: true, query: parsed.data }
}

/** The audit chart's query: the list's filters, a range (the last day by default) and an optional bucket. */
export const auditHistogramSchema = auditQuerySchema
  .omit({ cursor: true, limit: true, q: true })
  .extend({ bucket: z.enum(['minute', 'hour', 'day'], { error: 'must be minute, hour or day' }).optional() })
