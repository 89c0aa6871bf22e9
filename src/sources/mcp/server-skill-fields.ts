import type { ResolvedMcpServer } from '../../config/index.js'
import type { SkillDefinition } from '../../skill/index.js'
import type { McpServerHandle } from './mcp-server-handle.js'
import { mcpProvider } from './mcp-oauth-flow.js'

/** What every skill of one server shares: its category, deadline and OAuth account, and its connection's availability and missing secrets. */
export function serverSkillFields(
  server: ResolvedMcpServer,
  connection: McpServerHandle,
): Pick<SkillDefinition, 'category' | 'timeoutMs' | 'oauth' | 'unavailable' | 'awaiting'> {
  const oauth = server.transport === 'http' ? server.oauth : undefined
  return {
    category: server.name,
    ...(server.timeoutMs && { timeoutMs: server.timeoutMs }),
    // The connect stage refuses a call without a connection (needs_auth, with the link) before it reaches the server.
    ...(oauth && { oauth: { provider: mcpProvider(server), scopes: oauth.scopes ?? [], account: oauth.account } }),
    unavailable: () => connection.unavailable(),
    awaiting: () => {
      const secrets = connection.missingSecrets()
      return secrets.length > 0 ? { secrets } : null
    },
  }
}
