import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { z } from 'zod'

/**
 * Every page of a paginated list method (`prompts/list`, `resources/list`, ...), read leniently
 * (each item is checked by its caller on its own); bounded in items, pages (a repeated cursor) and time.
 */
export async function listPages(
  client: Client,
  method: string,
  field: string,
  limits: { timeoutMs: number; max: number; /** -32601 (method not found) to the first page: the server has no such list, none. */ noneIfUnanswered?: boolean },
): Promise<unknown[]> {
  const Page = z.looseObject({ [field]: z.array(z.unknown()), nextCursor: z.string().optional() })
  const items: unknown[] = []
  const seen = new Set<string>()
  const deadline = Date.now() + limits.timeoutMs
  let cursor: string | undefined
  do {
    const left = deadline - Date.now()
    if (left <= 0) throw new Error(`${method} took longer than ${limits.timeoutMs} ms`)
    const first = cursor === undefined
    const page = await client.request({ method, params: cursor ? { cursor } : {} }, Page, { timeout: left }).catch(async (error: unknown) => {
      // On a later page it is a failure: the pages before it are not the whole list.
      const { ErrorCode } = await import('@modelcontextprotocol/sdk/types.js')
      if (limits.noneIfUnanswered && first && (error as { code?: unknown } | null)?.code === ErrorCode.MethodNotFound) return null
      throw error
    })
    if (page === null) return []
    items.push(...(page[field] as unknown[]))
    if (items.length > limits.max) throw new Error(`${method} lists more than ${limits.max} ${field}`)
    cursor = page.nextCursor as string | undefined
    if (cursor !== undefined && seen.has(cursor)) throw new Error(`${method} repeated the cursor ${JSON.stringify(cursor).slice(0, 80)}`)
    if (cursor !== undefined) seen.add(cursor)
  } while (cursor !== undefined)
  return items
}
