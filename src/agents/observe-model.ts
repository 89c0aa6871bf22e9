import type { LanguageModelV3CallOptions, LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { SpanStatusCode, trace } from '@opentelemetry/api'

/** One model call as it goes, told to whoever records it. */
export interface ModelCallEvents {
  /** The first chunk of the answer (not the stream's opening metadata). */
  firstChunk(): void
  /** A text part of the answer starts or ends, in order. */
  text(edge: 'start' | 'end'): void
  /** The answer has streamed to its end. */
  ended(): void
  /** The call failed, or its stream did. */
  failed(error: unknown): void
}

/** Told of each model call as it starts: what it was sent and to which model. */
export type ModelCallObserver = (call: {
  prompt: LanguageModelV3CallOptions['prompt']
  tools: LanguageModelV3CallOptions['tools']
  provider: string
  modelId: string
}) => ModelCallEvents

const tracer = trace.getTracer('skillplane')
// Chunks that open a stream before the model has answered anything.
const PREAMBLE = new Set<LanguageModelV3StreamPart['type']>(['stream-start', 'response-metadata'])

/**
 * Middleware for the AI SDK's wrapLanguageModel that watches each streamed model call: when it
 * starts, its first chunk and its end, with the exact prompt and the tools offered (after
 * activeTools), and a `model step` span with the gen_ai attributes of OpenTelemetry's conventions.
 */
export function observeModel(observe: ModelCallObserver): LanguageModelV3Middleware {
  return {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream, params, model }) => {
      const span = tracer.startSpan('model step', {
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': model.provider, 'gen_ai.request.model': model.modelId },
      })
      const events = observe({ prompt: params.prompt, tools: params.tools, provider: model.provider, modelId: model.modelId })
      const fail = (error: unknown) => {
        events.failed(error)
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
        span.end()
      }
      let result: Awaited<ReturnType<typeof doStream>>
      let source: ReadableStream<LanguageModelV3StreamPart>
      try {
        result = await doStream()
        source = result.stream
      } catch (error) {
        fail(error)
        throw error
      }
      let answered = false
      let done = false
      // A run stopped mid-answer: its stream ends neither way.
      const aborted = () => {
        if (done) return
        done = true
        fail(params.abortSignal!.reason ?? new Error('the model call was aborted'))
      }
      params.abortSignal?.addEventListener('abort', aborted, { once: true })
      const settled = () => {
        done = true
        params.abortSignal?.removeEventListener('abort', aborted)
      }
      const stream = source.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(chunk, controller) {
            if (!answered && !PREAMBLE.has(chunk.type)) {
              answered = true
              events.firstChunk()
            }
            if (chunk.type === 'text-start') events.text('start')
            else if (chunk.type === 'text-end') events.text('end')
            else if (chunk.type === 'finish') {
              span.setAttributes({
                ...(chunk.usage.inputTokens.total !== undefined && { 'gen_ai.usage.input_tokens': chunk.usage.inputTokens.total }),
                ...(chunk.usage.outputTokens.total !== undefined && { 'gen_ai.usage.output_tokens': chunk.usage.outputTokens.total }),
                'gen_ai.response.finish_reasons': [chunk.finishReason.unified],
              })
            } else if (chunk.type === 'error' && !done) {
              settled()
              fail(chunk.error)
            }
            controller.enqueue(chunk)
          },
          flush() {
            if (done) return
            settled()
            events.ended()
            span.end()
          },
        }),
      )
      return { ...result, stream }
    },
  }
}
