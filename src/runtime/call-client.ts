import { MAX_SUB_SPANS, redact, scrubText, scrubValue, type SubSpan } from '../audit/index.js'
import type { CallerClient, ElicitOptions, ElicitParams, ElicitResult, LogMessage, SampleParams, SampleResult } from '../skill/index.js'
import { errorMessage } from './error-message.js'
import { SkillError } from './skill-error.js'

/** What a call records of the questions it asks: its key, its secrets, and where sub-spans go. */
export interface AskingCall {
  skill: string
  scrub(): ReadonlySet<string>
  note(span: SubSpan): void
  /** The call's own signal: a question is abandoned when the call ends. */
  signal: AbortSignal
  /** When the call's deadline ends it (epoch ms), if known. */
  deadline?: () => number | null
}

const MAX_TEXT = 1000
const MAX_MESSAGE = 500
const ACTIONS = new Set(['accept', 'decline', 'cancel'])

/** A caller that can answer nothing: a plain HTTP or CLI call, an edge's skill. */
export const NO_CALLER_CLIENT: CallerClient = {
  capabilities: { sampling: false, elicitation: { form: false, url: false }, logging: false },
  elicit: () => Promise.reject(new SkillError('unsupported', 'the caller of this call has no channel to answer questions (elicitation)')),
  sample: () => Promise.reject(new SkillError('unsupported', 'the caller of this call has no channel to answer with a model (sampling)')),
  log: () => {},
}

/**
 * A call's `ctx.client`: the caller's channel (or none), refusing what it can't answer with
 * `unsupported`, checking what it answers, and noting each question and its answer on the call.
 */
export function callerClient(call: AskingCall, channel: CallerClient | null | undefined): CallerClient {
  const capabilities = channel?.capabilities ?? NO_CALLER_CLIENT.capabilities
  let noted = 0
  const note = (span: SubSpan) => {
    if (noted++ < MAX_SUB_SPANS) call.note(span)
  }
  return {
    capabilities,
    async elicit(params: ElicitParams, options: ElicitOptions): Promise<ElicitResult> {
      const from = new Date().toISOString()
      const mode = params?.mode === 'url' ? 'url' : 'form'
      const message = scrubText(String(params?.message ?? '').slice(0, MAX_MESSAGE), call.scrub())
      try {
        if (!channel || !capabilities.elicitation[mode]) {
          throw new SkillError(
            'unsupported',
            `skill "${call.skill}" asked its caller for input (${mode}-mode elicitation), which the caller's client can't answer: ${lacking(channel, `elicitation.${mode}`)}`,
          )
        }
        const schema = mode === 'form' && 'requestedSchema' in params ? params.requestedSchema : null
        const kept = (answer: Record<string, unknown>) => redact(answer, schema, { scrub: call.scrub() }) as Record<string, unknown>
        const result = checkElicitResult(
          await channel.elicit(scrubbed(params, call), { signal: both(options?.signal, call.signal), redact: kept, ...deadlineOf(call) }),
          mode,
        )
        const content = result.content && kept(result.content)
        note({ kind: 'elicitation', from, to: new Date().toISOString(), mode, message, action: result.action, ...(content && { content }) })
        return result
      } catch (error) {
        note({ kind: 'elicitation', from, to: new Date().toISOString(), mode, message, action: null, error: scrubText(errorMessage(error), call.scrub()) })
        throw error
      }
    },
    async sample(params: SampleParams, options: { signal: AbortSignal }): Promise<SampleResult> {
      const from = new Date().toISOString()
      try {
        if (!channel || !capabilities.sampling) {
          throw new SkillError(
            'unsupported',
            `skill "${call.skill}" asked its caller's model for a completion (sampling), which the caller's client can't answer: ${lacking(channel, 'sampling')}`,
          )
        }
        const result = checkSampleResult(await channel.sample(scrubbed(params, call), { signal: both(options?.signal, call.signal) }))
        const text = textOf(result.content)
        note({
          kind: 'sampling',
          from,
          to: new Date().toISOString(),
          model: result.model.slice(0, 200),
          stopReason: typeof result.stopReason === 'string' ? result.stopReason.slice(0, 100) : null,
          text: text === null ? null : scrubText(text.slice(0, MAX_TEXT), call.scrub()),
        })
        return result
      } catch (error) {
        note({
          kind: 'sampling',
          from,
          to: new Date().toISOString(),
          model: null,
          stopReason: null,
          text: null,
          error: scrubText(errorMessage(error), call.scrub()),
        })
        throw error
      }
    },
    log(message: LogMessage): void {
      if (channel && capabilities.logging) channel.log(scrubbed(message, call))
    },
    ...(channel?.elicitationComplete && { elicitationComplete: (id: string) => channel.elicitationComplete!(id) }),
  }
}

const deadlineOf = (call: AskingCall) => {
  const at = call.deadline?.()
  return typeof at === 'number' ? { deadline: new Date(at).toISOString() } : {}
}

/** What goes to the caller carries none of the call's secrets (a server that quotes its token in a question). */
function scrubbed<T>(value: T, call: AskingCall): T {
  const scrub = call.scrub()
  return scrub.size === 0 ? value : (scrubValue(value, scrub) as T)
}

const lacking = (channel: CallerClient | null | undefined, capability: string) =>
  channel ? `it did not declare the ${capability} capability` : 'this call came without a channel to its caller (an HTTP API or CLI call)'

/** Abandoned when either ends: the asker gave up, or the call did. */
function both(signal: AbortSignal | undefined, callSignal: AbortSignal): AbortSignal {
  return signal ? AbortSignal.any([signal, callSignal]) : callSignal
}

/** A channel's answer is the caller's word: it must be an answer the skill can read. */
function checkElicitResult(result: ElicitResult, mode: 'form' | 'url'): ElicitResult {
  if (typeof result !== 'object' || result === null || !ACTIONS.has(result.action)) {
    throw new SkillError('invalid_input', `the caller's answer to an elicitation is malformed: action must be accept, decline or cancel`)
  }
  const { content } = result
  if (content === undefined || content === null || mode === 'url' || result.action !== 'accept') return { action: result.action }
  if (typeof content !== 'object' || Array.isArray(content))
    throw new SkillError('invalid_input', `the caller's answer to an elicitation is malformed: content must be an object`)
  for (const [name, value] of Object.entries(content)) {
    const ok = ['string', 'number', 'boolean'].includes(typeof value) || (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    if (!ok)
      throw new SkillError(
        'invalid_input',
        `the caller's answer to an elicitation is malformed: content.${name} must be a string, number, boolean or list of strings`,
      )
  }
  return { action: 'accept', content }
}

function checkSampleResult(result: SampleResult): SampleResult {
  if (typeof result !== 'object' || result === null || typeof result.model !== 'string' || typeof result.content !== 'object' || result.content === null) {
    throw new SkillError('invalid_input', `the caller's answer to a sampling request is malformed: it needs model and content`)
  }
  return result
}

function textOf(content: SampleResult['content']): string | null {
  const blocks = Array.isArray(content) ? content : [content]
  const texts = blocks.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)}]`))
  return texts.length === 0 ? null : texts.join('\n')
}
