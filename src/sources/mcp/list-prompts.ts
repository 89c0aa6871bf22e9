import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Prompt } from '@modelcontextprotocol/sdk/types.js'
import { listPages } from './list-pages.js'

const MAX_PROMPTS = 10_000

/** Every page of prompts/list, each prompt checked on its own: a malformed one is a problem, the rest are kept. */
export async function listAllPrompts(client: Client, timeoutMs: number): Promise<{ prompts: Prompt[]; problems: string[] }> {
  const raw = await listPages(client, 'prompts/list', 'prompts', { timeoutMs, max: MAX_PROMPTS })
  const { PromptSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const prompts: Prompt[] = []
  const problems: string[] = []
  raw.forEach((item, index) => {
    const parsed = PromptSchema.safeParse(item)
    if (parsed.success) return void prompts.push(parsed.data)
    const name = typeof (item as { name?: unknown } | null)?.name === 'string' ? `prompt "${(item as { name: string }).name}"` : `prompt #${index + 1}`
    const issue = parsed.error.issues[0]
    problems.push(`${name} is malformed (${issue?.path.join('.') || '(root)'}: ${issue?.message}); skipped`)
  })
  return { prompts, problems }
}
