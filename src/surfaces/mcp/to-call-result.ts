import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Envelope } from '../../skill/index.js'
import type { McpToolEntry } from './mcp-tool-list.js'
import { approvalText, connectLink, pendingApproval } from '../../access/index.js'

/**
 * An envelope as an MCP tool result: data as structured content (when the tool declares an
 * output schema) plus a text rendering; a skill imported from MCP passes its content through;
 * a failure is an error result naming the code, with what to do next for an approval, and the
 * link to follow (also as a `resource_link`) for an account the person must connect.
 */
export function toCallResult(envelope: Envelope, entry: McpToolEntry | null): CallToolResult {
  const meta = { 'skillplane/callId': envelope.callId }
  if (envelope.ok) {
    const { data } = envelope
    if (entry?.skill.source === 'mcp' && isMcpResult(data)) return { ...data, _meta: meta }
    const structured = entry?.tool.outputSchema && isPlainObject(data) ? data : undefined
    return {
      content: [{ type: 'text', text: typeof data === 'string' ? data : (JSON.stringify(data, null, 2) ?? 'null') }],
      ...(structured && { structuredContent: structured }),
      _meta: meta,
    }
  }
  const { error } = envelope
  const approvalId = pendingApproval(envelope)
  const link = connectLink(envelope)
  const text = approvalId
    ? `${approvalText(error.details!, approvalId)}\n\nAn approver decides with \`skillplane approvals approve ${approvalId}\` or ` +
      `POST /api/approvals/${approvalId}/approve. Once it is approved, call this tool again with exactly the same arguments: ` +
      `the approved request is resumed and runs once.`
    : link
      ? `${error.code}: ${error.message}${error.message.includes(link.url) ? '' : ` Connect at ${link.url}`}\n\n` +
        'Once connected, call this tool again with the same arguments.'
      : `${error.code}: ${error.message}`
  return {
    isError: true,
    content: [
      { type: 'text', text },
      ...(link && URL.canParse(link.url)
        ? [
            {
              type: 'resource_link' as const,
              uri: link.url,
              name: `connect-${link.provider}`,
              title: `Connect ${link.provider}`,
              description: `Sign in at ${link.provider} to connect the account this tool needs.`,
              mimeType: 'text/html',
            },
          ]
        : []),
    ],
    _meta: {
      ...meta,
      'skillplane/error': error.code,
      ...(approvalId && { 'skillplane/approvalId': approvalId }),
      ...(link && { 'skillplane/authorizationUrl': link.url }),
    },
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isMcpResult(value: unknown): value is { content: CallToolResult['content']; structuredContent?: Record<string, unknown> } {
  return isPlainObject(value) && Array.isArray(value.content)
}
