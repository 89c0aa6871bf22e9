import { z } from 'zod'
import { isValidName } from '../../sources/agent-skills/index.js'
import { RUN_STATUSES } from '../../agents/index.js'
import { APPROVAL_STATUSES, GRANT_MINUTES, GRANT_SCOPES, GRANT_STATES, POLICY_DECISIONS, POLICY_LEVELS } from '../../policy/index.js'
import { ROLES } from '../../abilities/index.js'

// The request shapes of the HTTP API: the routes validate with these, and /openapi.json is generated
// from them (each route's createRoute declaration), so the document can't promise what a route refuses.

/** A whole number in [min, max] from a query string, with one message for every way it can be wrong. */
const bounded = (min: number, max: number) => {
  const message = `must be an integer from ${min} to ${max}`
  return z.coerce.number({ error: message }).int(message).min(min, message).max(max, message)
}
const limit = bounded(1, 500).default(50)
const cursor = z.string().min(1).optional()

export const skillListQuery = z.object({
  class: z.string().optional().describe('only this class: safe, mutating or dangerous'),
  category: z.string().optional(),
  tag: z.string().optional(),
  source: z.string().optional().describe('code, agent-skill, pack, mcp, http or edge'),
  agent: z.string().optional().describe('only skills bound to this agent (id, name or alias)'),
  q: z.string().optional().describe('text in the key, title or description (any case)'),
  scope: z.string().optional().describe('manager or host'),
  available: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  connection: z
    .enum(['ready', 'needs_auth', 'needs_input'], { error: 'must be ready, needs_auth or needs_input' })
    .optional()
    .describe('only skills in this connection state for the caller'),
  key: z.string().min(1).optional().describe('only these skills: keys, comma-separated'),
  cursor: cursor.describe("the previous page's nextCursor"),
  limit: bounded(1, 500).default(100).describe('skills per page, 1–500 (default 100)'),
})

export const skillSearchQuery = z.strictObject({
  q: z.string().min(1, 'is required: what the skill should do, in plain words').max(1_000).describe('the task in plain words, or select:key1,key2'),
  limit: bounded(1, 50).optional().describe('most results, 1–50 (default 5)'),
  maxTokens: bounded(50, 100_000).optional().describe('cut the list to about this many tokens'),
  agent: z.string().optional().describe('discover for this agent (id, name or alias)'),
  excludeBound: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().describe("admins: skills the agent isn't bound to yet"),
  conversationId: z.string().min(1).max(200).optional().describe('a later call in this conversation teaches discovery'),
})

export const invokeBody = z.strictObject({
  input: z.unknown().optional().describe("The skill's input"),
  agent: z.string().min(1).max(200).optional().describe('Agent the call is made for (id, name or alias)'),
  conversationId: z.string().min(1).max(200).optional(),
  edgeId: z.string().min(1).max(200).optional().describe('Edge to run a host-scope skill on'),
  approvalId: z.string().min(1).max(64).optional().describe('Run with this approved request (same input only; runs once)'),
  wait: z
    .union([z.boolean(), z.number().int().min(1).max(3600)])
    .optional()
    .describe('When approval is needed, wait for the decision (true: the configured time; a number: seconds)'),
})

export const skillEditBody = z
  .strictObject({
    title: z.string().min(1).max(200).nullable().optional(),
    description: z.string().min(1).max(4000).nullable().optional(),
    systemPrompt: z.string().max(20_000).nullable().optional(),
    tags: z.array(z.string().min(1).max(64)).max(50).nullable().optional(),
    class: z.enum(['safe', 'mutating', 'dangerous']).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to change' })

const sharedWith = (what: string) => z.array(z.string().trim().min(1).max(200)).min(1, `name at least one ${what}`).max(100)
export const skillSharingBody = z.discriminatedUnion('visibility', [
  z.strictObject({ visibility: z.literal('all') }),
  z.strictObject({ visibility: z.literal('agents'), agents: sharedWith('agent').describe('agents by id, name or alias') }),
  z.strictObject({ visibility: z.literal('users'), users: sharedWith('user').describe('users by name or id') }),
])

export const eventsQuery = z.object({ subject: z.string().optional(), kind: z.string().optional(), cursor, limit })

export const runStartBody = z.strictObject({
  prompt: z.string().trim().min(1, 'must not be empty').max(100_000),
  wait: z.boolean().optional().describe('false: answer 202 at once with the run as started, and follow it at GET /api/runs/{id}/events'),
})
export const runInputAnswerBody = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('accept'),
    content: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("form mode: the answer, checked against the request's schema; url mode: none (accept means done)"),
  }),
  z.strictObject({ action: z.literal('decline') }),
  z.strictObject({ action: z.literal('cancel') }),
])
export const testRunBody = z.strictObject({
  input: z.string().trim().min(1, 'must not be empty').max(100_000),
  expectTool: z.string().min(1).optional(),
  set: z.record(z.string(), z.string()).optional().describe('Config changes for this run only: path → value'),
})
export const runListQuery = z.strictObject({
  status: z.enum(RUN_STATUSES).optional(),
  cursor,
  limit,
})

export const approvalListQuery = z.strictObject({
  status: z.enum(APPROVAL_STATUSES).optional(),
  decided: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .describe('true: only requests no longer pending (decided, expired, executed, withdrawn); false: only pending ones'),
  skill: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  cursor,
  limit,
})
export const sopCheckQuery = z.strictObject({ sopId: z.string().min(1).max(64).describe('The signed procedure to check against the request') })
export const decisionBody = z.strictObject({ comment: z.string().max(2000).optional(), sopId: z.string().min(1).max(64).optional() })
const minutesMessage = `must be a whole number of minutes from 1 to ${GRANT_MINUTES.max} (24 h)`
export const approveBody = decisionBody.extend({
  scope: z
    .enum(GRANT_SCOPES, { error: `must be one of ${GRANT_SCOPES.join(', ')}` })
    .optional()
    .describe(
      'once (default): this call; conversation: also later calls of the skill by this requester and agent in this conversation, for `minutes`; always (admins): an ALWAYS override for the agent and skill. Mutating skills only',
    ),
  minutes: z
    .number({ error: minutesMessage })
    .int(minutesMessage)
    .min(1, minutesMessage)
    .max(GRANT_MINUTES.max, minutesMessage)
    .optional()
    .describe(`How long a conversation grant lives (default ${GRANT_MINUTES.default})`),
})
export const grantListQuery = z.strictObject({
  status: z.enum(GRANT_STATES).optional().describe('only grants in this state (default: every grant)'),
  skill: z.string().min(1).optional(),
  agent: z.string().min(1).optional().describe('id, name or alias'),
  conversationId: z.string().min(1).optional(),
  cursor,
  limit,
})

export const policyBody = z.strictObject({
  skill: z.string().min(1).describe('A skill key or "*"'),
  level: z.enum(POLICY_LEVELS),
  subject: z.string().min(1).optional(),
  decision: z.enum(POLICY_DECISIONS),
})

export const effectivePolicyQuery = z.strictObject({
  subject: z
    .string()
    .min(1)
    .optional()
    .describe(
      'comma-separated: self, role:<viewer|operator|admin|agent>, agent:<id, name or alias>, user:<user name or id> (default: self; for admins every subject)',
    ),
  skill: z.string().min(1).optional().describe('only these skills: keys, comma-separated'),
  q: z.string().optional().describe('only skills whose key contains this (any case)'),
  class: z.enum(['safe', 'mutating', 'dangerous'], { error: 'must be safe, mutating or dangerous' }).optional(),
  edge: z.string().min(1).optional().describe('host-scope skills are decided as run on this edge (id or name): its edge overrides apply'),
  cursor: cursor.describe('the last skill key of the previous page'),
  limit: bounded(1, 500).default(100).describe('skills per page, 1–500 (default 100)'),
})

export const valueOwnerQuery = z.strictObject({
  agent: z.string().min(1).optional().describe("The agent's own value (name, alias or id)"),
  user: z.string().min(1).optional().describe("A user's own value (their API key's name)"),
})

export const valueBody = z.strictObject({
  value: z
    .string()
    .min(1, 'must not be empty')
    .max(65_536, 'must be at most 65536 characters')
    .describe('The value; a secret is encrypted at rest and never returned'),
  ...valueOwnerQuery.shape,
})

export const sopRegisterBody = z.strictObject({
  document: z.string().min(1).max(1_000_000),
  signature: z.string().min(1).max(10_000).describe('The JSON that `skillplane sop sign` writes to FILE.sig'),
})

export const exportQuery = z.object({ user: z.string().optional().describe('Render templates for this user (admins only)') })

export const enrollEdgeBody = z.strictObject({
  name: z.string().min(1).max(63).describe('lower-case letters, digits and -'),
  labels: z.record(z.string(), z.string()).optional().describe('Set by the admin; policies match them (`env=prod`)'),
  secrets: z.array(z.string()).optional().describe('Secret names calls of its packs may carry (see PUT /api/edges/{id}/secrets)'),
  expiresIn: z
    .string()
    .max(40)
    .optional()
    .describe("The token's lifetime, in hours or days (`12h`, `90d`; 1h to 3650d); none: it works until rotated or revoked"),
})

export const rotateEdgeBody = enrollEdgeBody.pick({ expiresIn: true })

export const edgeSecretsBody = z.strictObject({
  secrets: z.array(z.string()).describe('Every secret name the edge may receive (replaces the list); its packs get the ones they declare, per call'),
})

export const learningListQuery = z.strictObject({
  status: z.enum(['active', 'deprecated']).optional().describe('only learnings in this state'),
  category: z.enum(['discovery', 'pattern']).optional(),
  agent: z.string().min(1).optional().describe('only those made for this agent (id, name or alias)'),
  skill: z.string().min(1).optional().describe('only those this skill made'),
  limit: bounded(1, 1_000).default(100).describe('most learnings, newest first (1–1000, default 100)'),
})

const installName = z.string().refine(isValidName, 'a skill name: a-z, 0-9 and single hyphens')

export const skillInstallBody = z.strictObject({
  source: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(2000)
    .describe('a git URL, OWNER/REPO, …/tree/REF/PATH or a .zip/.tar.gz URL; not a path on the server'),
  skills: z.array(installName).max(100).optional().describe('the skills to install (default: all the source holds)'),
  pin: z.string().max(200).optional().describe('a branch, tag or commit (git sources)'),
  dryRun: z.boolean().optional().describe('fetch, validate and scan, and answer with the plan; install nothing'),
  acceptRisk: z.boolean().optional().describe('install although a skill has high-risk findings (read them in a dry run first)'),
  allowLoopback: z.boolean().optional().describe("fetch from the manager's own host (localhost, 127.0.0.0/8, ::1), refused by default"),
  allowRedirects: z.boolean().optional().describe("follow a git server's redirect to another origin, refused by default"),
})

const formFlag = z.enum(['true', 'false'], 'must be "true" or "false"').transform((value) => value === 'true')

/** The text fields of an upload, beside its file part. */
export const skillUploadFields = z.strictObject({
  skills: z
    .string()
    .max(4096)
    .transform((list) =>
      list
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    )
    .pipe(z.array(installName).max(100))
    .optional()
    .describe('comma-separated skill names to install (default: all the bundle holds)'),
  dryRun: formFlag.optional(),
  acceptRisk: formFlag.optional(),
})

export const skillUploadForm = z.strictObject({
  bundle: z.string().meta({ format: 'binary' }).describe('the bundle: a zip or gzip-compressed tar of one or more SKILL.md folders'),
  ...skillUploadFields.shape,
})

const role = z.enum(ROLES, { error: 'must be viewer, operator or admin' })

export const addUserBody = z.strictObject({
  name: z.string().min(1).max(100).describe('unique; keys are made for the user by this name'),
  displayName: z.string().max(100).optional().describe('the name audit rows and approvals show'),
  role: role.nullable().optional().describe('a role granted to the user itself'),
})

export const userEditBody = z.strictObject({
  role: role.nullable().optional().describe("the user's own role (null: none; its groups' roles still apply)"),
  disabled: z.boolean().optional().describe('true stops every key of theirs at once; false lets their unrevoked keys work again'),
})

export const addGroupBody = z.strictObject({
  name: z.string().min(1).max(100),
  role: role.nullable().optional().describe('a role granted to every member'),
})

export const groupEditBody = z.strictObject({
  role: role.nullable().describe('the role granted to every member (null: none)'),
})

const scopeToken = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token (no spaces or quotes)')

export const authorizeBody = z
  .strictObject({
    scopes: z.array(scopeToken).max(100).optional().describe("Scopes to ask for besides the connection's own (default: the provider's)"),
    account: z
      .enum(['person', 'service'], { error: 'must be person or service' })
      .default('person')
      .describe('service: the one connection an admin makes for everyone'),
    returnTo: z.string().max(2000).optional().describe('The console path the browser comes back to (default /connections)'),
  })
  .default({ account: 'person' })

export const connectionsQuery = z.strictObject({
  all: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().describe("true: everyone's connections (admin)"),
})

export const disconnectQuery = z.strictObject({
  account: z.enum(['person', 'service'], { error: 'must be person or service' }).optional().describe("service: the service account's connection (admin)"),
  user: z.string().min(1).max(200).optional().describe("Another person's connection (admin)"),
})
