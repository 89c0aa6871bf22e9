import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3StreamResult } from '@ai-sdk/provider'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

/** A scripted model turn (for the AI SDK's MockLanguageModelV3) that calls one tool. */
export const callsTool = (toolName: string, input: object, id = 'call-1'): LanguageModelV3GenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
})

/** A scripted model turn that answers in text. */
export const says = (text: string): LanguageModelV3GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
})

/** A scripted turn as a model streams it (doStream), text word by word. */
export function streamed(turn: LanguageModelV3GenerateResult): LanguageModelV3StreamResult {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  turn.content.forEach((part, i) => {
    if (part.type === 'text') {
      const id = `text-${i}`
      parts.push({ type: 'text-start', id }, ...part.text.split(/(?<= )/).map((delta) => ({ type: 'text-delta' as const, id, delta })), {
        type: 'text-end',
        id,
      })
    } else if (part.type === 'tool-call') parts.push(part)
  })
  parts.push({ type: 'finish', finishReason: turn.finishReason, usage: turn.usage })
  return { stream: convertArrayToReadableStream(parts) }
}

/** A mock model that streams `turns`, one a call, as agent runs use it. */
export const scripted = (...turns: LanguageModelV3GenerateResult[]): MockLanguageModelV3 => new MockLanguageModelV3({ doStream: turns.map(streamed) })
