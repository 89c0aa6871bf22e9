import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart, LanguageModelV3StreamResult, LanguageModelV3Usage } from '@ai-sdk/provider'
import { simulateReadableStream } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'

/** Token counts a scripted turn reports; `input` counts the cached and cache-written tokens too, as providers do. */
export interface ScriptedUsage {
  input?: number
  output?: number
  cacheRead?: number
  cacheWrite?: number
  reasoning?: number
}

/** A turn's usage as a provider reports it (one token in, one out unless told). */
export function usageOf({ input = 1, output = 1, cacheRead = 0, cacheWrite = 0, reasoning = 0 }: ScriptedUsage = {}): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input - cacheRead - cacheWrite, cacheRead, cacheWrite },
    outputTokens: { total: output, text: output - reasoning, reasoning },
  }
}

/** A scripted model turn (for the AI SDK's MockLanguageModelV3) that calls one tool. */
export const callsTool = (toolName: string, input: object, id = 'call-1', usage?: ScriptedUsage): LanguageModelV3GenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage: usageOf(usage),
  warnings: [],
})

/** A scripted model turn that answers in text. */
export const says = (text: string, usage?: ScriptedUsage): LanguageModelV3GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: usageOf(usage),
  warnings: [],
})

/**
 * A scripted turn as a model streams it (doStream), text word by word; with `chunkDelayInMs`, each
 * chunk comes that long after the one before, as from a real model.
 */
export function streamed(turn: LanguageModelV3GenerateResult, timing?: { chunkDelayInMs: number }): LanguageModelV3StreamResult {
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
  return { stream: timing ? simulateReadableStream({ chunks: parts, chunkDelayInMs: timing.chunkDelayInMs }) : convertArrayToReadableStream(parts) }
}

/** A mock model that streams `turns`, one a call, as agent runs use it. */
export const scripted = (...turns: LanguageModelV3GenerateResult[]): MockLanguageModelV3 =>
  new MockLanguageModelV3({ doStream: turns.map((turn) => streamed(turn)) })
