import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { auditExportSchema, EXPORT_CONTENT_TYPES, exportHeader, exportLines, parseAuditExport } from '../../../audit/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, query, serve } from '../openapi/declare.js'
import { errorResponse } from '../error-response.js'
import { requireAbility } from '../middleware/require-ability.js'

/**
 * GET /api/audit/export: the list's filters as a file, streamed a page at a time through the list's
 * cursor, so memory stays at one page whatever the size. Mounted before the audit routes, whose
 * `/{callId}` would take `export` for a call id.
 */
export function auditExportRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const route = createRoute({
    method: 'get',
    path: '/export',
    summary: 'The calls the audit filters (q too) match, as JSON lines or CSV, newest first (operator or admin)',
    middleware: [requireAbility('readAudit')] as const,
    ...query(auditExportSchema),
    responses: {
      200: {
        description:
          'JSON lines (each line an AuditEntry) or CSV (a header line, then one record per call, fixed columns); at most `limit` calls, the count in the `Skillplane-Export-Limit` header',
        content: {
          [EXPORT_CONTENT_TYPES.jsonl]: { schema: { type: 'string' } },
          [EXPORT_CONTENT_TYPES.csv]: { schema: { type: 'string' } },
        },
      },
      ...failures(400, 401, 403),
    },
  })
  serve(app, route, async (c) => {
    const parsed = parseAuditExport(c.req.query())
    if (!parsed.ok) return errorResponse(c, 'invalid_input', `invalid audit export query: ${parsed.message}`)
    const { format, limit, ...filter } = parsed.query
    if (filter.agent) filter.agent = plane.agents.resolve(filter.agent) ?? filter.agent
    const pages = plane.audit.matching(filter, limit)
    const encoder = new TextEncoder()
    let started = false
    // Pulled a page at a time: the next page is read only when the client has taken the last.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!started) {
          started = true
          const header = exportHeader(format)
          if (header) return controller.enqueue(encoder.encode(header))
        }
        const next = await pages.next()
        if (next.done) controller.close()
        else controller.enqueue(encoder.encode(exportLines(format, next.value)))
      },
      async cancel() {
        await pages.return(undefined)
      },
    })
    const stamp = new Date()
      .toISOString()
      .replaceAll(':', '-')
      .replace(/\.\d+Z$/, 'Z')
    return c.body(body, 200, {
      'Content-Type': EXPORT_CONTENT_TYPES[format],
      'Content-Disposition': `attachment; filename="audit-${stamp}.${format}"`,
      'Skillplane-Export-Limit': String(limit),
    })
  })
  return app
}
