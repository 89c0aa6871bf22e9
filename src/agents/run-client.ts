import type { LanguageModelUsage, ModelMessage } from 'ai'
import { ulid } from 'ulid'
import type { Plane } from '../plane/index.js'
import type { ResolvedAgent } from '../config/index.js'
import type { CallerClient, ElicitOptions, ElicitParams, ElicitResult, SampleParams, SampleResult } from '../skill/index.js'
import { SkillError } from '../runtime/index.js'
import type { RunRow } from '../store/index.js'
import { createModel } from './create-model.js'
import { markSecretFields } from '../audit/index.js'
import type { StepRecorder } from './step-recorder.js'
import type { RunInputs } from './run-inputs.js'

/** What a run's tool call reaches its caller through: the run, for one tool call. */
export interface RunClientOptions {
  plane: Plane
  run: RunRow
  agent: ResolvedAgent
  call: { toolCallId: string; tool: string }
  record: StepRecorder
  inputs: RunInputs
  /** Told of each sampling's usage (the run's metrics). */
  used(usage: { model: { modelId: string }; usage: LanguageModelUsage }): void
}

// What a sampling step keeps of the request: the text of each message, this long at most.
const REQUEST_TEXT_CAP = 2_000

/**
 * An agent run as the caller of one of its tool calls: sampling is answered with the agent's own
 * model (a `sampling` step, its usage and cost counted to the run), and elicitation waits for a
 * person's answer over HTTP or the console (an `input` step, awaiting_input) while the call stays
 * open, at most the approvals wait timeout, then cancels. Log messages have nowhere to go: none.
 */
export function runClient(o: RunClientOptions): CallerClient {
  let sampled = 0
  return {
    capabilities: { sampling: true, elicitation: { form: true, url: true }, logging: false },
    sample: (params, { signal }) => {
      const { maxRequestsPerCall } = o.agent.sampling
      // A server that samples in a loop would run up the agent's model without end.
      if (sampled++ >= maxRequestsPerCall) {
        return Promise.reject(
          new SkillError(
            'denied',
            `agent "${o.agent.name}" answers at most ${maxRequestsPerCall} sampling requests per tool call (sampling.maxRequestsPerCall): ${o.call.tool} asked for more`,
          ),
        )
      }
      return sample(o, params, signal)
    },
    elicit: (params, options) => elicit(o, params, options),
    log: () => {},
  }
}

async function sample(o: RunClientOptions, params: SampleParams, signal: AbortSignal): Promise<SampleResult> {
  if (Array.isArray(params.tools) && params.tools.length > 0) {
    throw new SkillError(
      'unsupported',
      'an agent run answers sampling without tools: this request offers tools, which skillplane does not run for a sampling request',
    )
  }
  const messages = params.messages.map(toModelMessage)
  const { generateText } = await import('ai')
  const model = createModel(o.agent)
  const started = Date.parse(o.plane.now())
  const request = summary(params)
  try {
    const result = await generateText({
      model,
      ...(params.systemPrompt && { system: params.systemPrompt }),
      messages,
      // The server says how long; the agent's config says how long at most.
      maxOutputTokens: Math.min(params.maxTokens, o.agent.sampling.maxTokens),
      ...(params.temperature !== undefined && { temperature: params.temperature }),
      ...(params.stopSequences?.length && { stopSequences: params.stopSequences }),
      abortSignal: signal,
      maxRetries: 0,
    })
    const modelId = result.response.modelId ?? model.modelId
    o.used({ model: { modelId }, usage: result.usage })
    await o.record.sampled(o.call, {
      request,
      provider: model.provider,
      modelId,
      usage: result.usage,
      finishReason: result.finishReason,
      text: result.text,
      started,
      ended: Date.parse(o.plane.now()),
    })
    return { role: 'assistant', content: { type: 'text', text: result.text }, model: modelId, stopReason: stopReason(result.finishReason) }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    await o.record
      .sampled(o.call, {
        request,
        provider: model.provider,
        modelId: model.modelId,
        usage: { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined } as LanguageModelUsage,
        finishReason: 'error',
        text: null,
        error: message,
        started,
        ended: Date.parse(o.plane.now()),
      })
      .catch(() => {})
    throw error
  }
}

async function elicit(o: RunClientOptions, params: ElicitParams, options: ElicitOptions): Promise<ElicitResult> {
  const { signal } = options
  const { plane, run } = o
  const url = params.mode === 'url' ? params.url : null
  if (url !== null && !/^https?:$/.test(safeProtocol(url))) {
    throw new SkillError('invalid_input', `an elicitation link must be http or https: "${url.slice(0, 200)}" is not shown to a person`)
  }
  // Marked where redaction will hide a field, so the form (the console's) types it unseen.
  const requestedSchema = params.mode === 'url' ? null : (markSecretFields(params.requestedSchema) ?? null)
  const id = ulid()
  const now = plane.now()
  // No longer than approvals wait, nor than the call that asks may run.
  const waitEnds = Date.parse(now) + plane.config.approvals.waitTimeoutMs
  const callEnds = options.deadline ? Date.parse(options.deadline) : Number.NaN
  const expiresAt = new Date(Number.isNaN(callEnds) ? waitEnds : Math.min(waitEnds, callEnds)).toISOString()
  const step = await o.record.asking(o.call, { inputId: id, mode: url === null ? 'form' : 'url', message: params.message, requestedSchema, url, expiresAt })
  await o.inputs.add({
    id,
    run_id: run.id,
    tool_call_id: o.call.toolCallId,
    tool_name: o.call.tool,
    step_idx: step.idx,
    manager_id: plane.status.managerId,
    mode: url === null ? 'form' : 'url',
    message: params.message,
    requested_schema: requestedSchema ? JSON.stringify(requestedSchema) : null,
    url,
    status: 'pending',
    content: null,
    answered_by_id: null,
    answered_by_name: null,
    created_at: now,
    expires_at: expiresAt,
    decided_at: null,
  })
  const decided = await o.inputs.wait(id, expiresAt, signal)
  // The answer as typed goes to the call; what is kept and shown of it is redacted as the call's sub-span.
  const content = decided.content ? (JSON.parse(decided.content) as Record<string, unknown>) : undefined
  const kept = content && (options.redact?.(content) ?? o.inputs.redact(content, requestedSchema))
  if (content && kept) await o.inputs.kept(id, decided.content!, kept)
  const by = decided.answered_by_name ? { answeredBy: decided.answered_by_name } : {}
  switch (decided.status) {
    case 'accepted':
      await o.record.answered(step, 'accepted', { action: 'accept', ...(kept && { content: kept }), ...by })
      return { action: 'accept', ...(content && { content: content as ElicitResult['content'] }) }
    case 'declined':
      await o.record.answered(step, 'declined', { action: 'decline', ...by })
      return { action: 'decline' }
    case 'expired':
      await o.record.answered(
        step,
        'expired',
        { action: 'cancel' },
        `no answer within ${Date.parse(expiresAt) - Date.parse(now)} ms (${expiresAt === new Date(waitEnds).toISOString() ? 'the approvals wait timeout' : "the call's deadline"}): cancelled`,
      )
      return { action: 'cancel' }
    case 'gone':
      await o.record.answered(step, 'gone', { action: 'cancel' }, 'the call ended before an answer came').catch(() => {})
      return { action: 'cancel' }
    default:
      await o.record.answered(step, 'cancelled', { action: 'cancel', ...by })
      return { action: 'cancel' }
  }
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol
  } catch {
    return ''
  }
}

/** An MCP sampling message as the AI SDK's: text and images; other content is refused, named. */
function toModelMessage(message: SampleParams['messages'][number], index: number): ModelMessage {
  const blocks = Array.isArray(message.content) ? message.content : [message.content]
  const parts = blocks.map((block) => {
    if (block.type === 'text') return { type: 'text' as const, text: block.text }
    if (block.type === 'image' && message.role === 'user') return { type: 'image' as const, image: block.data, mediaType: block.mimeType }
    throw new SkillError(
      'unsupported',
      `sampling message ${index} has ${block.type} content (from the ${message.role}): an agent run samples text, and images from the user`,
    )
  })
  if (message.role === 'assistant') return { role: 'assistant', content: parts as Array<{ type: 'text'; text: string }> }
  return { role: 'user', content: parts }
}

/** What a sampling step shows of the request: its settings and each message's text, images named. */
function summary(params: SampleParams): unknown {
  return {
    ...(params.systemPrompt && { systemPrompt: params.systemPrompt.slice(0, REQUEST_TEXT_CAP) }),
    maxTokens: params.maxTokens,
    ...(params.temperature !== undefined && { temperature: params.temperature }),
    ...(params.stopSequences?.length && { stopSequences: params.stopSequences }),
    messages: params.messages.map((m) => ({
      role: m.role,
      content: (Array.isArray(m.content) ? m.content : [m.content]).map((block) =>
        block.type === 'text' ? block.text.slice(0, REQUEST_TEXT_CAP) : `[${block.type}${'mimeType' in block ? ` ${String(block.mimeType)}` : ''}]`,
      ),
    })),
  }
}

/** The AI SDK's finish reason as MCP's stop reason. */
function stopReason(finish: string): string {
  switch (finish) {
    case 'stop':
      return 'endTurn'
    case 'length':
      return 'maxTokens'
    case 'tool-calls':
      return 'toolUse'
    default:
      return finish
  }
}
