import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeProvider {
  /** Base URL for an openai-compatible model ("…/v1"). */
  url: string
  requests: Array<{ path: string; headers: IncomingHttpHeaders; body: any }>
  close(): Promise<void>
}

/**
 * An OpenAI-compatible chat completions endpoint on 127.0.0.1, streaming, with a fixed script: a prompt that
 * says "use echo" gets a call to echo, a conversation with a tool result gets "done", anything
 * else "hello from the fake".
 */
export async function startFakeProvider(): Promise<FakeProvider> {
  const requests: FakeProvider['requests'] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk) => (raw += chunk))
    req.on('end', () => {
      const body = JSON.parse(raw)
      requests.push({ path: req.url!, headers: req.headers, body })
      const messages: Array<{ role: string; content: unknown }> = body.messages ?? []
      const message: { role: string; content: string | null; tool_calls?: object[] } = messages.some((m) => m.role === 'tool')
        ? { role: 'assistant', content: 'done' }
        : JSON.stringify(messages.at(-1)?.content ?? '').includes('use echo')
          ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"message":"hi"}' } }] }
          : { role: 'assistant', content: 'hello from the fake' }
      // Streamed, as agent runs ask: the message in one delta, then the finish.
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: `c${requests.length}`, object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...(finish && { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) })}\n\n`
      const delta = message.content === null ? { role: 'assistant', tool_calls: message.tool_calls!.map((call, index) => ({ index, ...call })) } : message
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(chunk(delta, null) + chunk({}, message.content === null ? 'tool_calls' : 'stop') + 'data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
