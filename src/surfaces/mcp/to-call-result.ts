import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Envelope } from '../../skill/index.js'
import type { McpToolEntry } from './mcp-tool-list.js'
import { approvalText, pendingApproval } from '../../access/index.js'

/**
 * An envelope as an MCP tool result: data as structured content (when the tool declares an
 * output schema) plus a text rendering; a skill imported from MCP passes its content through;
 * a failure is an error result naming the code, with what to do next for an approval.
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
  const text = approvalId
    ? `${approvalText(error.details!, approvalId)}\n\nAn approver decides with \`skillplane approvals approve ${approvalId}\` or ` +
      `POST /api/approvals/${approvalId}/approve. Once it is approved, call this tool again with exactly the same arguments: ` +
      `the approved request is resumed and runs once.`
    : `${error.code}: ${error.message}`
  return {
    isError: true,
    content: [{ type: 'text', text }],
    _meta: { ...meta, 'skillplane/error': error.code, ...(approvalId && { 'skillplane/approvalId': approvalId }) },
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isMcpResult(value: unknown): value is { content: CallToolResult['content']; structuredContent?: Record<string, unknown> } {
  return isPlainObject(value) && Array.isArray(value.content)
}
