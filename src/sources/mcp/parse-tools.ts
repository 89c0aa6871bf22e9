import type { Tool } from '@modelcontextprotocol/sdk/types.js'

/** Why one listed tool could not become a skill. */
export type ToolProblem = string

/**
 * Check each tool of a tools/list answer (or of a stored list) on its own: a malformed tool is
 * reported by name and skipped, and the rest are kept.
 */
export async function parseTools(raw: readonly unknown[]): Promise<{ tools: Tool[]; problems: ToolProblem[] }> {
  // Loaded when a list is parsed: commands that touch no MCP server never load the SDK.
  const { ToolSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const tools: Tool[] = []
  const problems: ToolProblem[] = []
  raw.forEach((item, index) => {
    const parsed = ToolSchema.safeParse(item)
    if (parsed.success) {
      // The parse rebuilds objects in its own key order: the schemas are kept as the server sent them.
      const sent = item as Pick<Tool, 'inputSchema' | 'outputSchema'>
      tools.push({ ...(parsed.data as Tool), inputSchema: sent.inputSchema, ...(sent.outputSchema !== undefined && { outputSchema: sent.outputSchema }) })
      return
    }
    const name = typeof (item as { name?: unknown } | null)?.name === 'string' ? `tool "${(item as { name: string }).name}"` : `tool #${index + 1}`
    const issue = parsed.error.issues[0]
    problems.push(`${name} is malformed (${issue?.path.join('.') || '(root)'}: ${issue?.message}); skipped`)
  })
  return { tools, problems }
}
