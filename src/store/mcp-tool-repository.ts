import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** The last tool list of each MCP server, as it answered it. */
export class McpToolRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Each server's stored list as parsed JSON (null when the row does not parse); callers check the tools. */
  async all(): Promise<Map<string, unknown>> {
    const rows = await this.db.selectFrom('mcp_tools').selectAll().execute()
    return new Map(
      rows.map((row) => {
        try {
          return [row.server, JSON.parse(row.tools) as unknown]
        } catch {
          return [row.server, null]
        }
      }),
    )
  }

  async save(server: string, tools: unknown[], now: string): Promise<void> {
    const json = JSON.stringify(tools)
    await this.db
      .insertInto('mcp_tools')
      .values({ server, tools: json, listed_at: now })
      .onConflict((oc) => oc.column('server').doUpdateSet({ tools: json, listed_at: now }))
      .execute()
  }
}
