import pino from 'pino'
import { z } from 'zod'
import { defineSkill } from '../skill/define-skill.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/define-config.js'
import type { Caller, Envelope } from '../skill/skill-types.js'
import type { TestDatabase } from './databases.js'
import type { AuditRow } from '../store/index.js'

export const admin: Caller = { kind: 'user', id: 'u-admin', name: 'alice', role: 'admin' }
export const operator: Caller = { kind: 'user', id: 'u-op', name: 'oscar', role: 'operator' }
export const viewer: Caller = { kind: 'user', id: 'u-view', name: 'vera', role: 'viewer' }
export const agentCaller = (agentId: string): Caller => ({ kind: 'agent', id: `k-${agentId}`, name: `${agentId}-key`, agentId })

export const silentLogger = () => pino({ level: 'silent' })

/** A skill needing GITHUB_TOKEN, bound to Helper: its output tells which token reached it (by length), never the token. */
export const tokenLength = defineSkill({
  key: 'token_length',
  description: 'Tells which token it was given, by its length',
  class: 'safe',
  agents: ['Helper'],
  secrets: ['GITHUB_TOKEN'],
  run: (_input, ctx) => ctx.secrets.get('GITHUB_TOKEN').length,
})

/** The approval request id of an approval_required envelope; throws on any other answer. */
export function approvalIdOf(envelope: Envelope): string {
  if (envelope.ok || envelope.error.code !== 'approval_required') throw new Error(`expected approval_required, got ${JSON.stringify(envelope)}`)
  return envelope.error.details!.approvalId as string
}

/** Skills exercising every pipeline outcome. */
export function testSkills() {
  return [
    defineSkill({
      key: 'echo',
      description: 'Return the message',
      class: 'safe',
      agents: ['Helper'],
      input: z.object({ message: z.string().min(1), count: z.number().int().min(1).default(1) }),
      output: z.object({ message: z.string(), count: z.number() }),
      run: (input) => input,
    }),
    defineSkill({
      key: 'write_thing',
      description: 'A mutating skill',
      class: 'mutating',
      agents: ['helper'],
      input: z.object({ value: z.string() }),
      run: ({ value }) => ({ stored: value }),
    }),
    defineSkill({
      key: 'wipe_things',
      description: 'A dangerous skill',
      class: 'dangerous',
      agents: ['Helper'],
      input: z.object({ count: z.number().int().min(1).default(1) }),
      run: ({ count }) => {
        wipes.push(count)
        return { wiped: count }
      },
    }),
    defineSkill({
      key: 'explode',
      description: 'Always throws',
      class: 'safe',
      run: () => {
        throw new Error('the disk is on fire')
      },
    }),
    defineSkill({
      key: 'hang',
      description: 'Never finishes; records whether its signal aborted',
      class: 'safe',
      timeoutMs: 100,
      input: z.object({}),
      run: (_input, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => hangAborts.push(String((ctx.signal.reason as Error)?.name)))
          setTimeout(resolve, 60_000).unref()
        }),
    }),
    defineSkill({
      key: 'late_fail',
      description: 'Fails only after its deadline has passed',
      class: 'safe',
      timeoutMs: 50,
      run: () => new Promise((_, reject) => setTimeout(() => reject(new Error('too late to matter')), 150)),
    }),
    defineSkill({
      key: 'slow',
      description: 'Finishes after ms milliseconds',
      class: 'safe',
      input: z.object({ ms: z.number().int().min(0) }),
      run: ({ ms }, ctx) =>
        new Promise((resolve) => {
          const t = setTimeout(() => resolve({ slept: ms }), ms)
          ctx.signal.addEventListener('abort', () => clearTimeout(t))
        }),
    }),
    defineSkill({
      key: 'bad_output',
      description: 'Returns output violating its schema',
      class: 'safe',
      output: z.object({ count: z.number() }),
      run: () => ({ count: 'many' }) as unknown as { count: number },
    }),
    defineSkill({
      key: 'login',
      description: 'Takes secrets',
      class: 'safe',
      input: z.object({
        user: z.string(),
        pin: z.string().meta({ writeOnly: true }),
        password: z.string(),
        nested: z.object({ apiKey: z.string(), note: z.string() }).optional(),
      }),
      run: ({ user }) => ({ user, sessionToken: 'tok-123', ok: true }),
    }),
    defineSkill({
      key: 'leaky',
      description: 'Echoes its secret back, with no output schema to mark it',
      class: 'safe',
      input: z.object({ passphrase: z.string(), fail: z.boolean().default(false) }),
      run: ({ passphrase, fail }) => {
        if (fail) throw new Error(`passphrase ${passphrase} rejected`)
        return { echoed: `you sent ${passphrase}`, nested: [{ again: passphrase }] }
      },
    }),
    defineSkill({
      key: 'counted',
      description: 'Records each run',
      class: 'safe',
      input: z.object({ tag: z.string() }),
      run: ({ tag }) => {
        counted.push(tag)
        return { tag }
      },
    }),
    defineSkill({
      key: 'picky',
      description: 'Its schema refinement throws on some input',
      class: 'safe',
      input: z.object({ json: z.string().transform((text) => JSON.parse(text) as unknown) }),
      run: ({ json }) => ({ json }),
    }),
    defineSkill({
      key: 'bulk_delete',
      description: 'Deletes items; asks a human for large batches',
      class: 'mutating',
      input: z.object({ ids: z.array(z.string()).min(1) }),
      needsApproval: ({ ids }) => (ids.length > 10 ? `a batch of ${ids.length} items exceeds the limit of 10` : false),
      run: ({ ids }) => ({ deleted: ids.length }),
    }),
    defineSkill({
      key: 'big_result',
      description: 'Returns a large result',
      class: 'safe',
      input: z.object({ size: z.number().int() }),
      run: ({ size }) => ({ text: 'é'.repeat(size) }),
    }),
    defineSkill({
      key: 'parent_call',
      description: 'Calls echo through ctx.invoke',
      class: 'safe',
      agents: ['Helper'],
      run: async (_input, ctx) => {
        const child = await ctx.invoke('echo', { message: 'from parent' })
        return { child }
      },
    }),
    defineSkill({
      key: 'recurse',
      description: 'Calls itself forever',
      class: 'safe',
      run: async (_input, ctx) => ctx.invoke('recurse', {}),
    }),
    defineSkill({
      key: 'remote_thing',
      description: 'Runs on an edge',
      class: 'safe',
      scope: 'host',
      run: () => ({}),
    }),
    defineSkill({
      key: 'json_schema_skill',
      description: 'Uses a raw JSON Schema input',
      class: 'safe',
      input: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 2 }, size: { type: 'integer', default: 3 } },
      },
      run: (input) => input,
    }),
  ]
}

/** Every run of counted, by tag. */
export const counted: string[] = []

/** Every run of wipe_things, in order: proves a dangerous call ran, and how often. */
export const wipes: number[] = []

/** Every hang executor's abort reason, in order: proves the deadline reaches the executor. */
export const hangAborts: string[] = []

export const testAgents: SkillplaneConfig['agents'] = [
  { name: 'Helper', aliases: ['helper', 'h'], description: 'The test agent' },
  { name: 'Other', aliases: [], description: 'Bound to nothing' },
]

export async function openTestPlane(
  database: TestDatabase,
  config: SkillplaneConfig = {},
  location?: { dataDir: string; databaseUrl?: string },
): Promise<Skillplane> {
  const where = location ?? (await database.create())
  return createSkillplane({
    config: { skills: testSkills(), agents: testAgents, ...config },
    ...where,
    logger: silentLogger(),
    sync: true,
  })
}

/** An audit row as the pipeline opens one (`running`, a local call), with `extra` over it. */
export function auditRow(callId: string, extra: Partial<AuditRow> = {}): AuditRow {
  return {
    call_id: callId,
    parent_call_id: null,
    skill_key: 'noop',
    caller_id: 'k1',
    caller_name: 'alice',
    caller_kind: 'user',
    caller_role: 'admin',
    caller_user_id: null,
    caller_display_name: null,
    caller_auth: null,
    caller_key_id: null,
    agent_id: null,
    conversation_id: null,
    edge_id: null,
    edge_name: null,
    manager_id: 'm1',
    input: '{}',
    result: null,
    result_truncated: 0,
    error_code: null,
    error_message: null,
    status: 'running',
    started_at: new Date().toISOString(),
    finished_at: null,
    duration_ms: null,
    approval_id: null,
    trace_id: null,
    grant_id: null,
    origin_call_id: null,
    spans: null,
    ...extra,
  }
}
