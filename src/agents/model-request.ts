import type { LanguageModelV3CallOptions } from '@ai-sdk/provider'

/** What a model was sent for one model step: its system prompt, the tools it was offered, the messages. */
export interface ModelRequest {
  system: string | null
  tools: Array<{ name: string; description: string | null }>
  /** The AI SDK's prompt messages after the system prompt, as the model got them (secrets redacted when stored). */
  messages: unknown[]
}

/**
 * A model request as stored: what changed since the run's previous model request. `keep` messages
 * of that request come first (a model is sent the whole conversation each step), then `messages`;
 * `system` and `tools` are there only when they changed. A run of n steps so stores its
 * conversation about once, not n times.
 */
export interface RequestDelta {
  keep: number
  messages: unknown[]
  system?: string | null
  tools?: ModelRequest['tools']
}

/** The request in the AI SDK's provider call: system messages joined, the tools offered (after activeTools). */
export function toModelRequest(call: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): ModelRequest {
  const system = call.prompt.filter((m) => m.role === 'system').map((m) => m.content)
  return {
    system: system.length ? system.join('\n\n') : null,
    tools: (call.tools ?? []).map((t) => ({ name: t.name, description: t.type === 'function' ? (t.description ?? null) : null })),
    messages: call.prompt.filter((m) => m.role !== 'system'),
  }
}

/** `next` as a change on `previous` (the run's previous model request; undefined for its first). */
export function requestDelta(previous: ModelRequest | undefined, next: ModelRequest): RequestDelta {
  let keep = 0
  if (previous) {
    const max = Math.min(previous.messages.length, next.messages.length)
    while (keep < max && JSON.stringify(previous.messages[keep]) === JSON.stringify(next.messages[keep])) keep++
  }
  const delta: RequestDelta = { keep, messages: next.messages.slice(keep) }
  if (!previous || previous.system !== next.system) delta.system = next.system
  if (!previous || JSON.stringify(previous.tools) !== JSON.stringify(next.tools)) delta.tools = next.tools
  return delta
}

/** The request a delta stands for, given the request before it. */
export function applyDelta(previous: ModelRequest | undefined, delta: RequestDelta): ModelRequest {
  return {
    system: delta.system !== undefined ? delta.system : (previous?.system ?? null),
    tools: delta.tools ?? previous?.tools ?? [],
    messages: [...(previous?.messages.slice(0, delta.keep) ?? []), ...delta.messages],
  }
}

/** The last request of a run's model steps, from their stored deltas in order. */
export function rebuildRequest(deltas: readonly RequestDelta[]): ModelRequest | undefined {
  return deltas.reduce<ModelRequest | undefined>((previous, delta) => applyDelta(previous, delta), undefined)
}
