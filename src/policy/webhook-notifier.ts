import type { SkillLogger } from '../skill/index.js'

export interface WebhookEvent {
  type: string
  [field: string]: unknown
}

/** POSTs approval events to a webhook: retried with backoff, failures logged, never awaited by a call. */
export class WebhookNotifier {
  readonly #pending = new Set<Promise<void>>()

  constructor(
    private readonly url: string | undefined,
    private readonly logger: SkillLogger,
    private readonly options: { attempts: number; backoffMs: number; timeoutMs: number } = { attempts: 5, backoffMs: 500, timeoutMs: 5_000 },
  ) {}

  notify(event: WebhookEvent): void {
    if (!this.url) return
    const delivery = this.#deliver(this.url, event).finally(() => this.#pending.delete(delivery))
    this.#pending.add(delivery)
  }

  /** Wait for deliveries in flight (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.#pending])
  }

  async #deliver(url: string, event: WebhookEvent): Promise<void> {
    const body = JSON.stringify({ ...event, sentAt: new Date().toISOString() })
    for (let attempt = 1; attempt <= this.options.attempts; attempt++) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'skillplane' },
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        })
        await response.body?.cancel()
        if (response.ok) return
        throw new Error(`HTTP ${response.status}`)
      } catch (error) {
        const last = attempt === this.options.attempts
        this.logger[last ? 'error' : 'warn'](
          { event: event.type, attempt, err: (error as Error).message },
          last ? 'webhook delivery failed; giving up' : 'webhook delivery failed; retrying',
        )
        if (last) return
        await new Promise((resolve) => setTimeout(resolve, this.options.backoffMs * 2 ** (attempt - 1)))
      }
    }
  }
}
