import type { Plane } from '../plane/index.js'
import type { Caller } from '../skill/index.js'
import { compileSchema, describeIssues } from '../skill/index.js'
import type { RunInputRow, RunRepository } from '../store/index.js'
import { mayAnswerRunInput } from '../abilities/index.js'
import { RunError } from './run-error.js'
import { SkillplaneError } from '../errors/index.js'
import { markSecretFields, redact } from '../audit/index.js'

/** What a person is asked for while a run's tool call waits (an imported MCP server's elicitation), as shown. */
export interface RunInput {
  id: string
  runId: string
  toolCallId: string | null
  tool: string | null
  /** The run step that shows it. */
  step: number | null
  /** form: fill `requestedSchema`; url: open `url`, then say done or cancel. */
  mode: 'form' | 'url'
  message: string
  requestedSchema: Record<string, unknown> | null
  url: string | null
  status: RunInputStatus
  /** An accepted form's content, redacted as the call's audit keeps it. */
  content: Record<string, unknown> | null
  /** Who besides the person the run acts for may answer: approvers of this role (admin for an admin's run or a dangerous tool). */
  approverRole: 'operator' | 'admin'
  answeredBy: { id: string; name: string } | null
  createdAt: string
  expiresAt: string
  decidedAt: string | null
}

/** pending; answered (accepted, declined, cancelled); expired (no answer in time); gone (the manager holding the call stopped). */
export type RunInputStatus = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired' | 'gone'

/** A person's answer: accept (with the form's content; none in URL mode, where it means done), decline or cancel. */
export type RunInputAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' }

const ANSWERED = { accept: 'accepted', decline: 'declined', cancel: 'cancelled' } as const
const FIRST_POLL_MS = 100
const MAX_POLL_MS = 1_000

/** Why an answer can't be taken, with the code every surface maps (409: decided already, expired or gone). */
export class RunInputError extends SkillplaneError {
  override name = 'RunInputError'
  constructor(
    message: string,
    override readonly code: 'denied' | 'not_found' | 'invalid_input' | 'conflict',
    readonly status?: RunInputStatus,
  ) {
    super(message)
  }
}

/**
 * The inputs runs wait for: stored so that a person answers on any manager sharing the database
 * (decided once: the first answer wins), and heard by the manager holding the call at once when
 * answered there, else at its next look (polled, backing off to a second).
 */
export class RunInputs {
  readonly #waiters = new Map<string, () => void>()

  constructor(
    private readonly plane: Plane,
    private readonly repo: RunRepository,
  ) {}

  async list(run: RunOf): Promise<RunInput[]> {
    return (await this.repo.inputs(run.id)).map((row) => this.#toInput(row, run))
  }

  /** Store a request the run's call now waits for. */
  add(row: RunInputRow): Promise<void> {
    return this.repo.addInput(row)
  }

  /**
   * The decided request once it is decided, or expired by us at `expiresAt` (an answer that came
   * first wins); stops waiting when `signal` aborts, marking it gone (the call that asked is over).
   */
  async wait(id: string, expiresAt: string, signal: AbortSignal): Promise<RunInputRow> {
    let delay = FIRST_POLL_MS
    try {
      for (;;) {
        const row = await this.repo.getInput(id)
        if (!row) throw new RunError(`input request ${id} is missing`)
        if (row.status !== 'pending') return row
        const left = Date.parse(expiresAt) - Date.parse(this.plane.now())
        if (left <= 0 || signal.aborted) {
          const status = signal.aborted ? 'gone' : 'expired'
          await this.repo.decideInput(id, { status, decided_at: this.plane.now() }, false)
          continue
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer)
            signal.removeEventListener('abort', done)
            this.#waiters.delete(id)
            resolve()
          }
          const timer = setTimeout(done, Math.min(delay, left))
          signal.addEventListener('abort', done, { once: true })
          this.#waiters.set(id, done)
        })
        delay = Math.min(delay * 2, MAX_POLL_MS)
      }
    } finally {
      this.#waiters.delete(id)
    }
  }

  /**
   * A person's answer to a run's input request: checked (who may answer, the content against the
   * requested schema) and decided atomically; throws a RunInputError naming why it is refused.
   */
  async answer(run: RunOf, inputId: string, caller: Caller, answer: RunInputAnswer): Promise<RunInput> {
    const row = await this.repo.getInput(inputId)
    if (!row || row.run_id !== run.id) throw new RunInputError(`run "${run.id}" has no input request "${inputId}"`, 'not_found')
    const approverRole = this.#approverRole(row, run)
    if (!mayAnswerRunInput(caller, run, approverRole)) {
      const who = caller.kind === 'agent' ? 'an agent key' : `role ${caller.role}`
      const why = approverRole === 'admin' ? (run.requester.role === 'admin' ? 'the run acts for an admin' : `${row.tool_name} is dangerous`) : null
      throw new RunInputError(
        `${who} may not answer this run's input request: the person the run acts for or an approver (${approverRole === 'admin' ? `admin, as ${why}` : 'operator or higher'}) may`,
        'denied',
      )
    }
    if (row.status !== 'pending') throw decided(row)
    let content: Record<string, unknown> | null = null
    if (answer.action === 'accept' && row.mode === 'form') {
      const schema = row.requested_schema ? (JSON.parse(row.requested_schema) as Record<string, unknown>) : { type: 'object' }
      const checked = compileSchema(schema, 'input', `input request ${inputId}`).validate(answer.content ?? {})
      if (!checked.ok) throw new RunInputError(describeIssues('the answer does not match the requested schema', checked.issues), 'invalid_input')
      // As sent: the schema's defaults are for the form to offer, not to be added to an answer.
      content = answer.content ?? {}
    } else if (answer.action === 'accept' && answer.content !== undefined) {
      throw new RunInputError('a URL-mode request is accepted without content: open the link, then accept (done) or cancel', 'invalid_input')
    }
    const now = this.plane.now()
    const won = await this.repo.decideInput(
      inputId,
      {
        status: ANSWERED[answer.action],
        content: content && JSON.stringify(content),
        answered_by_id: caller.id,
        answered_by_name: caller.name,
        decided_at: now,
      },
      true,
    )
    const after = (await this.repo.getInput(inputId))!
    if (!won) throw decided(after.status === 'pending' ? { ...after, status: 'expired' } : after)
    this.#waiters.get(inputId)?.()
    return this.#toInput(after, run)
  }

  /** An answer's content as kept when the call's own redaction is not at hand: by the requested schema. */
  redact(content: Record<string, unknown>, schema: Record<string, unknown> | null): Record<string, unknown> {
    return redact(content, schema) as Record<string, unknown>
  }

  /**
   * The call has read the answer as typed: from now on only `kept` (redacted) is stored. Bound to
   * the content read, in one statement, so it never overwrites anything else.
   */
  async kept(id: string, raw: string, kept: Record<string, unknown>): Promise<void> {
    await this.repo.keepInputContent(id, raw, JSON.stringify(kept))
  }

  // Deciding an approval for the call would need an admin for an admin's run or a dangerous tool: so does answering for it.
  #approverRole(row: RunInputRow, run: RunOf): 'operator' | 'admin' {
    const skill = row.tool_name ? this.plane.skills.get(row.tool_name) : undefined
    return run.requester.role === 'admin' || skill?.class === 'dangerous' ? 'admin' : 'operator'
  }

  // Shown redacted by the requested schema even before the call has read and redacted it.
  #toInput(row: RunInputRow, run: RunOf): RunInput {
    const input = toInput(row, this.#approverRole(row, run))
    return input.content ? { ...input, content: this.redact(input.content, input.requestedSchema) } : input
  }

  /** The requests this manager's calls wait for are gone: it stops. */
  async goneHere(): Promise<void> {
    await this.repo.goneInputsOf(this.plane.status.managerId, this.plane.now())
  }
}

function decided(row: RunInputRow): RunInputError {
  const why =
    row.status === 'expired'
      ? `it expired at ${row.expires_at} with no answer, and the call went on without one`
      : row.status === 'gone'
        ? 'the call that asked is gone: the manager holding it stopped, or the call ended'
        : `it was ${row.status} already${row.answered_by_name ? ` by ${row.answered_by_name}` : ''}`
  return new RunInputError(`input request ${row.id} can't be answered: ${why}`, 'conflict', row.status as RunInputStatus)
}

/** The run an input belongs to, as far as who may answer goes. */
export interface RunOf {
  id: string
  requester: { id: string; role: string | null }
}

function toInput(row: RunInputRow, approverRole: RunInput['approverRole']): RunInput {
  return {
    id: row.id,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    tool: row.tool_name,
    step: row.step_idx,
    mode: row.mode as RunInput['mode'],
    message: row.message,
    // Marked as served too: a request stored before the server marked secret fields still has them typed unseen.
    requestedSchema: row.requested_schema ? markSecretFields(JSON.parse(row.requested_schema) as Record<string, unknown>) : null,
    url: row.url,
    status: row.status as RunInputStatus,
    content: row.content ? (JSON.parse(row.content) as Record<string, unknown>) : null,
    approverRole,
    answeredBy: row.answered_by_id ? { id: row.answered_by_id, name: row.answered_by_name ?? row.answered_by_id } : null,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  }
}
