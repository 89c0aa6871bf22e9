import { z } from 'zod'
import { MAX_KEY_LENGTH, MAX_TIMEOUT_MS, VALUE_NAME, VALUE_NAME_RULE, isValidKey } from '../../skill/index.js'

/** The tunnel's messages, one JSON object per WebSocket text frame, checked on both sides. */
export const PROTOCOL_VERSION = 1
/** The path edges dial on the manager's HTTP port. */
export const CONNECT_PATH = '/api/edges/connect'
/** No frame may be larger, either way (ws closes the connection with 1009 past it). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024
/** Close codes: the tunnel's own, in the range WebSocket leaves to applications. */
export const CLOSE = {
  /** A message that is not JSON or not in the protocol: the connection is closed with the reason. */
  malformed: 4400,
  /** The token was revoked (or the edge's identity was refused). */
  revoked: 4401,
  /** The edge is connected already with this token: the newer connection is refused. */
  duplicate: 4409,
  /** The manager is shutting down: reconnect elsewhere. */
  goingAway: 1001,
} as const

const callId = z.string().min(1).max(64)
const text = (max: number) => z.string().max(max)
// Label keys and values as Kubernetes allows them, roughly: they name edges in policies (`env=prod`).
export const labelKey = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'a label key: letters, digits, _ . -, at most 63')
export const labelValue = z.string().regex(/^[A-Za-z0-9_.-]{0,63}$/, 'a label value: letters, digits, _ . -, at most 63')
export const labels = z.record(labelKey, labelValue).refine((l) => Object.keys(l).length <= 32, 'at most 32 labels')
export const edgeName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'an edge name: lower-case letters, digits and -, at most 63, starting with a letter or digit')

const jsonObject = z.record(z.string(), z.unknown())
const secretName = z.string().regex(VALUE_NAME, `a secret name (${VALUE_NAME_RULE})`)
/** The secret names an admin grants an edge. */
export const secretGrants = z.array(secretName).max(64, 'at most 64 secrets')

export const offeredSkill = z.strictObject({
  key: z.string().max(MAX_KEY_LENGTH).refine(isValidKey, 'a skill key (lower_snake)'),
  title: text(200).optional(),
  description: text(4000),
  class: z.enum(['safe', 'mutating', 'dangerous']),
  category: text(64).optional(),
  tags: z.array(text(64)).max(32).optional(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.optional(),
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  /** Why the skill can't run on this edge now (a missing program, no --allow-read roots). */
  unavailable: text(500).nullable().optional(),
  /** Secrets the skill needs: the manager resolves them per caller and sends them with each call. */
  secrets: z.array(secretName).max(32).optional(),
  /** The OAuth connection it runs with: the manager sends the caller's access token as the secret named after the provider. */
  oauth: z
    .strictObject({
      provider: z
        .string()
        .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, 'a provider name (lower_snake)')
        .max(64),
      scopes: z
        .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token'))
        .max(32)
        .optional(),
      account: z.enum(['person', 'service']).optional(),
    })
    .optional(),
})
export type OfferedSkill = z.infer<typeof offeredSkill>

export const helloMessage = z.strictObject({
  type: z.literal('hello'),
  protocol: z.literal(PROTOCOL_VERSION),
  /** What the edge believes it is; refused when the token says otherwise. */
  edgeId: text(64).optional(),
  name: edgeName.optional(),
  hostname: text(253),
  os: text(100),
  arch: text(50),
  version: text(50),
  labels: labels,
  skills: z.array(offeredSkill).max(1000),
})
export type HelloMessage = z.infer<typeof helloMessage>

const edgeErrorCode = z.enum(['invalid_input', 'executor_error', 'timeout', 'unavailable', 'not_found', 'invalid_output'])
export type EdgeErrorCode = z.infer<typeof edgeErrorCode>

export const resultMessage = z.discriminatedUnion('ok', [
  z.strictObject({ type: z.literal('result'), id: callId, ok: z.literal(true), data: z.unknown() }),
  z.strictObject({ type: z.literal('result'), id: callId, ok: z.literal(false), error: z.strictObject({ code: edgeErrorCode, message: text(8000) }) }),
])
export type ResultMessage = z.infer<typeof resultMessage>

export const progressMessage = z.strictObject({
  type: z.literal('progress'),
  id: callId,
  progress: z.number(),
  total: z.number().optional(),
  message: text(1000).optional(),
})

/** What an edge may send once it is welcomed: answers to the calls it was sent, nothing else. */
export const fromEdge = z.union([resultMessage, progressMessage])
export type FromEdge = z.infer<typeof fromEdge>

export const welcomeMessage = z.strictObject({
  type: z.literal('welcome'),
  edgeId: z.string(),
  name: z.string(),
  managerId: z.string(),
  /** The manager pings this often; an edge that hears nothing for three times as long reconnects. */
  heartbeatMs: z.number().int().positive(),
  /** Skills the manager would not take from this edge, with why (a key another source holds). */
  refused: z.array(z.strictObject({ key: z.string(), reason: z.string() })),
})
export type WelcomeMessage = z.infer<typeof welcomeMessage>

export const callMessage = z.strictObject({
  type: z.literal('call'),
  id: callId,
  key: z.string(),
  input: z.unknown(),
  timeoutMs: z.number().int().positive(),
  /** The secrets the skill declared, opened for this call only: an edge holds none between calls. */
  secrets: z.record(secretName, text(65_536)).optional(),
})
export type CallMessage = z.infer<typeof callMessage>

export const cancelMessage = z.strictObject({ type: z.literal('cancel'), id: callId, reason: text(500) })

/** What a manager may send after its welcome. */
export const fromManager = z.union([callMessage, cancelMessage])
export type FromManager = z.infer<typeof fromManager>

/** Parse one frame against a schema: the message, or what is wrong with it in a line. */
export function parseFrame<S extends z.ZodType>(schema: S, data: unknown): { ok: true; value: z.output<S> } | { ok: false; reason: string } {
  let json: unknown
  try {
    json = JSON.parse(typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : String(data))
  } catch {
    return { ok: false, reason: 'a frame that is not JSON' }
  }
  const parsed = schema.safeParse(json)
  if (parsed.success) return { ok: true, value: parsed.data }
  const issue = parsed.error.issues[0]!
  const type = typeof json === 'object' && json !== null && typeof (json as { type?: unknown }).type === 'string' ? (json as { type: string }).type : '?'
  return { ok: false, reason: `a malformed "${type.slice(0, 40)}" message: ${issue.path.join('.') || '(root)'}: ${issue.message}` }
}
