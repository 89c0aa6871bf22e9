import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider'
import type { Plane } from '../plane/index.js'
import type { RunStepListed } from '../store/index.js'
import { redact, scrubText, scrubValue } from '../audit/index.js'

/**
 * A run's steps and model requests are served over HTTP, so secrets are redacted as in the audit
 * log: a tool call's input by its skill's schema (and credential-looking names), and every secret
 * value found that way blanked out of everything else stored for the run (outputs, errors, text,
 * what the model was sent). The secrets found are kept for the whole run.
 */
export class RunRedactor {
  readonly #secrets = new Set<string>()

  constructor(private readonly skills: Plane['skills']) {}

  /** Learn the secrets of a tool call's input (as the model sent it). */
  learn(toolName: string, input: unknown): void {
    redact(input, this.#schema(toolName, 'input'), { collect: this.#secrets })
  }

  /** A tool step as stored: its input redacted from `raw` (the model's arguments) when known, output and error scrubbed. */
  step(row: RunStepListed, raw: unknown): void {
    if (row.kind === 'text' && row.text !== null) row.text = scrubText(row.text, this.#secrets)
    // What a tool call sampled or asked a person for may repeat the call's secrets.
    if (row.kind === 'sampling' || row.kind === 'input') {
      for (const column of ['text', 'input', 'output', 'error'] as const) if (row[column] !== null) row[column] = scrubText(row[column], this.#secrets)
      return
    }
    if (row.kind !== 'tool') return
    const input = raw !== undefined ? raw : row.input !== null ? (JSON.parse(row.input) as unknown) : undefined
    if (input !== undefined) row.input = JSON.stringify(redact(input, this.#schema(row.tool_name, 'input'), { collect: this.#secrets }) ?? null)
    if (row.output !== null) row.output = JSON.stringify(redact(JSON.parse(row.output), this.#schema(row.tool_name, 'output'), { scrub: this.#secrets }))
    if (row.error !== null) row.error = scrubText(row.error, this.#secrets)
  }

  /** Text that may repeat a secret (an error message). */
  text(text: string): string {
    return scrubText(text, this.#secrets)
  }

  /**
   * What the model was sent, redacted: the secrets of every tool call in it are learnt first, so a
   * secret is blanked out of the text before the call that reveals it too.
   */
  prompt(prompt: LanguageModelV3Prompt): LanguageModelV3Message[] {
    for (const message of prompt) {
      if (message.role !== 'assistant') continue
      for (const part of message.content) if (part.type === 'tool-call') this.learn(part.toolName, part.input)
    }
    return prompt.map((message) => this.#message(message))
  }

  #message(message: LanguageModelV3Message): LanguageModelV3Message {
    const secrets = this.#secrets
    switch (message.role) {
      case 'system':
        return { ...message, content: scrubText(message.content, secrets) }
      case 'user':
        return scrubValue(message, secrets) as LanguageModelV3Message
      case 'assistant':
        return {
          ...message,
          content: message.content.map((part) =>
            part.type === 'tool-call'
              ? { ...part, input: redact(part.input, this.#schema(part.toolName, 'input'), { scrub: secrets }) }
              : part.type === 'tool-result'
                ? { ...part, output: this.#output(part.toolName, part.output) }
                : (scrubValue(part, secrets) as typeof part),
          ),
        }
      case 'tool':
        return {
          ...message,
          content: message.content.map((part) =>
            part.type === 'tool-result' ? { ...part, output: this.#output(part.toolName, part.output) } : (scrubValue(part, secrets) as typeof part),
          ),
        }
    }
  }

  /** A tool's result as the model got it: JSON by the skill's output schema, anything else scrubbed. */
  #output<T extends { type: string; value?: unknown }>(toolName: string, output: T): T {
    if (output.type === 'json') return { ...output, value: redact(output.value, this.#schema(toolName, 'output'), { scrub: this.#secrets }) }
    return scrubValue(output, this.#secrets) as T
  }

  #schema(toolName: string | null, side: 'input' | 'output') {
    const skill = toolName ? this.skills.get(toolName) : undefined
    return side === 'input' ? skill?.input.jsonSchema : skill?.output?.jsonSchema
  }
}
