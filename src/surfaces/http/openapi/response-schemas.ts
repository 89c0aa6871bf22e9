import { z } from '@hono/zod-openapi'
import { ABILITY_NAMES, ROLES, type Ability } from '../../../abilities/index.js'

// The answers of the HTTP API, declared beside the routes that send them: /openapi.json and the
// console's types come from these, and the suite checks every 2xx it sees against them
// (SKILLPLANE_CHECK_RESPONSES, see check-responses.ts). Objects are open: a field added later is no break.

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable()
const who = z.object({ id: z.string(), name: z.string() })
const klass = z.enum(['safe', 'mutating', 'dangerous'])
const role = z.enum(ROLES)
const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: nullable(z.string()) })
const jsonSchema = z.record(z.string(), z.unknown())

export const Failure = z
  .object({
    ok: z.literal(false),
    callId: z.string().optional().describe('Present when the call reached the pipeline'),
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
  })
  .openapi('Failure')

export const Success = z.object({ ok: z.literal(true), data: z.unknown(), callId: z.string() }).openapi('Success')

const identity = {
  displayName: z.string().optional(),
  auth: z.enum(['key', 'session', 'token']).optional().describe('how the caller authenticated'),
}
export const Caller = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('user'), id: z.string(), name: z.string(), role, ...identity }),
    z.object({
      kind: z.literal('agent'),
      id: z.string(),
      name: z.string(),
      agentId: z.string().describe('the agent it acts for'),
      userId: z.string().optional(),
      ...identity,
    }),
  ])
  .openapi('Caller')

export const Me = z.object({
  caller: Caller,
  abilities: z
    .object(Object.fromEntries(ABILITY_NAMES.map((name) => [name, z.boolean()])) as Record<Ability, z.ZodBoolean>)
    .describe('every ability of the table in src/access, true when the caller holds it'),
  csrfToken: z.string().optional().describe('for a console session: the header x-csrf-token its changes send'),
})

export const Health = z.object({
  ok: z.boolean(),
  version: z.string(),
  database: z.string().optional(),
  skills: z.number().optional(),
  manager: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
})

export const SignInConfig = z.object({
  oidc: nullable(z.object({ issuer: z.string(), signInUrl: z.string() })),
  session: z.boolean().describe("whether the request's cookie holds a live console session"),
})

const ConnectionState = z
  .object({
    state: z.enum(['ready', 'needs_auth', 'needs_input']),
    missing: z.object({ secrets: z.array(z.string()).optional(), settings: z.array(z.string()).optional() }).optional(),
    oauth: z
      .object({ provider: z.string(), missingScopes: z.array(z.string()), account: z.enum(['person', 'service']) })
      .optional()
      .describe('the OAuth connection the skill waits for: connect with POST /api/connections/{provider}/authorize'),
  })
  .openapi('ConnectionState')

export const SkillSummary = z
  .object({
    key: z.string(),
    title: z.string(),
    description: z.string(),
    class: klass.describe('in effect: the declared class or a catalog raise of it'),
    declaredClass: klass,
    scope: z.enum(['manager', 'host']),
    category: z.string(),
    tags: z.array(z.string()),
    source: z.string(),
    enabled: z.boolean(),
    available: z.boolean(),
    unavailableReason: nullable(z.string()),
    connection: ConnectionState.optional().describe('whether the secrets and settings it needs are set for the caller'),
    agents: z.array(z.string()),
  })
  .openapi('SkillSummary')

export const SkillList = z.object({
  skills: z.array(SkillSummary),
  nextCursor: nullable(z.string()).describe('pass as `cursor` (with the same filters) for the next page; null on the last page'),
})

const RiskFinding = z
  .object({
    level: z.enum(['info', 'warning', 'high']),
    rule: z.string(),
    file: z.string(),
    line: z.number().optional(),
    message: z.string(),
  })
  .openapi('RiskFinding')
const Finding = z.object({ file: z.string(), line: z.number(), severity: z.enum(['error', 'warning']), message: z.string() }).openapi('Finding')

const detailCommon = {
  overrides: z.object({ title: z.boolean(), description: z.boolean(), tags: z.boolean(), class: z.boolean() }),
  sharing: z.object({ visibility: z.enum(['all', 'agents', 'users']), agents: z.array(z.string()).optional(), users: z.array(z.string()).optional() }),
  risks: z.array(RiskFinding),
}

export const ExecutableDetail = SkillSummary.extend({
  ...detailCommon,
  slug: z.string(),
  toolName: z.string(),
  origin: z.string(),
  timeoutMs: z.number(),
  systemPrompt: nullable(z.string()),
  inputSchema: jsonSchema,
  outputSchema: nullable(jsonSchema),
  examples: z.array(z.unknown()).optional(),
  needs: z.object({ secrets: z.array(z.string()), settings: z.array(z.string()) }),
}).openapi('ExecutableDetail')

export const InstructionDetail = SkillSummary.extend({
  ...detailCommon,
  folder: z.string(),
  template: z.boolean(),
  diagnostics: z.array(z.object({ severity: z.string(), message: z.string(), line: z.number().optional() })),
}).openapi('InstructionDetail')

export const SkillDetail = z.union([ExecutableDetail, InstructionDetail])

export const SkillSearch = z.object({
  results: z.array(z.object({ key: z.string() }).catchall(z.unknown())),
  omitted: z.unknown().optional(),
})

export const SkillSharing = z.object({ key: z.string(), sharing: detailCommon.sharing, notes: z.array(z.string()) })

export const InstallReport = z
  .object({
    dryRun: z.boolean(),
    applied: z.boolean(),
    source: z.unknown(),
    upload: nullable(z.object({ filename: z.string(), sha256: z.string(), bytes: z.number() })),
    available: z.array(z.object({ name: z.string(), description: z.string(), skillPath: z.string() })),
    skills: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        skillPath: z.string(),
        change: z.enum(['new', 'update', 'unchanged']),
        diff: z.unknown(),
        computedHash: z.string(),
        files: z.record(z.string(), z.string()),
        links: z.record(z.string(), z.string()),
        findings: z.array(Finding),
        risks: z.array(RiskFinding),
        needsAcceptance: z.boolean(),
      }),
    ),
    findings: z.array(Finding),
    installed: z.array(z.string()),
    unchanged: z.array(z.string()),
  })
  .openapi('InstallReport')

const installed = z.object({ computedHash: z.string(), source: z.string() })
export const Rollback = z.object({ ok: z.literal(true), name: z.string(), restored: installed, replaced: nullable(installed) })

export const AuditEntry = z
  .object({
    callId: z.string(),
    parentCallId: nullable(z.string()),
    originCallId: nullable(z.string()).optional().describe('the call another skillplane says made this one (over MCP): shown in trees, never trusted'),
    skill: z.string(),
    caller: z.object({ id: z.string(), name: z.string(), kind: z.string(), role: z.string() }),
    agent: nullable(z.string()),
    conversationId: nullable(z.string()),
    edgeId: nullable(z.string()).describe('the edge a host-scope call ran on'),
    edgeName: nullable(z.string()).describe('its name at the time'),
    status: z.enum(['running', 'ok', 'error', 'denied', 'timeout', 'interrupted', 'approval_required']),
    input: z.unknown().optional(),
    result: z.unknown().optional(),
    resultTruncated: z.boolean(),
    error: nullable(z.object({ code: z.string(), message: z.string() })),
    startedAt: z.string(),
    finishedAt: nullable(z.string()),
    durationMs: nullable(z.number()),
    approvalId: nullable(z.string()),
    traceId: nullable(z.string()),
    grantId: nullable(z.string()).describe('the conversation grant that let the call run without a request of its own'),
  })
  .openapi('AuditEntry')

export const AuditPage = page(AuditEntry)

export const Span = z
  .object({
    id: z
      .string()
      .describe(
        'unique within its tree: `call:<id>`, `run:<id>`, `model:<run>:<step>`, `approval:<id>`, `relay:<call>`, `edge:<call>`, `remote:<call>:<n>`, `elicitation:<call>:<n>`, `sampling:<call>:<n>`',
      ),
    parentId: nullable(z.string()),
    kind: z.enum(['run', 'model', 'call', 'approval', 'relay', 'edge', 'remote', 'elicitation', 'sampling']),
    name: z
      .string()
      .describe(
        'the skill, the agent, the model, the manager or edge, the question asked of the caller (elicitation), or `hidden` for a span the viewer may not see',
      ),
    startedAt: z.string(),
    endedAt: nullable(z.string()).describe('null while it goes on (a running call or run, a pending approval)'),
    status: z.string().describe("a call's, run's or approval's status; elicitation `accepted`, `declined`, `cancelled` or `error`; sampling `ok` or `error`"),
    callId: z.string().optional(),
    runId: z.string().optional(),
    stepIndex: z.number().optional(),
    approvalId: z.string().optional(),
    managerId: z.string().optional().describe('relay: the manager holding the edge'),
    edge: z.string().optional(),
    usage: z.object({ inputTokens: nullable(z.number()), outputTokens: nullable(z.number()) }).optional(),
    costUsd: nullable(z.number()).optional(),
    elicitation: z
      .object({
        mode: z.enum(['form', 'url']),
        message: z.string(),
        action: nullable(z.enum(['accept', 'decline', 'cancel'])),
        content: z.record(z.string(), z.unknown()).optional().describe("the accepted answer, scrubbed of the call's secrets"),
        error: z.string().optional().describe("why no answer came (the caller can't answer, a failure)"),
      })
      .optional()
      .describe('elicitation: the question the call put to its caller, and what it received'),
    sampling: z
      .object({
        model: nullable(z.string()),
        stopReason: nullable(z.string()),
        text: nullable(z.string()).describe("the answer's text, at most 1,000 characters"),
        error: z.string().optional(),
      })
      .optional()
      .describe("sampling: what the caller's model answered"),
  })
  .openapi('Span')

export const CallTree = z
  .object({
    rootId: z.string(),
    startedAt: z.string(),
    endedAt: nullable(z.string()),
    spans: z.array(Span).describe('in tree order: a parent before its children, siblings by start'),
    truncated: z.boolean().describe('the tree had more spans than the 2,000 shown'),
  })
  .openapi('CallTree')

export const Histogram = z
  .object({
    bucket: z.enum(['minute', 'hour', 'day']),
    from: z.string(),
    to: z.string(),
    points: z.array(z.object({ at: z.string(), calls: z.number(), failed: z.number() })),
  })
  .openapi('Histogram')

const rate = nullable(z.number().min(0).max(1))
export const StatsRow = z
  .object({
    value: z.string(),
    calls: z.number(),
    ok: z.number(),
    failed: z.number(),
    refused: z.number(),
    errorRate: rate,
    refusalRate: rate,
    p50Ms: nullable(z.number()),
    p95Ms: nullable(z.number()),
    p99Ms: nullable(z.number()),
    approvalsPending: z.number(),
    approvalWaits: z.number(),
    waitMedianS: nullable(z.number()),
  })
  .openapi('StatsRow')

export const StatsTable = z
  .object({
    dim: z.enum(['skill', 'agent', 'edge', 'caller']),
    window: z.enum(['1h', '6h', '24h', '7d', '30d']),
    from: z.string(),
    to: z.string(),
    items: z.array(StatsRow),
  })
  .openapi('StatsTable')

export const StatsSeries = z
  .object({
    dim: z.enum(['all', 'skill', 'agent', 'edge', 'caller']),
    value: z.string(),
    window: z.enum(['1h', '6h', '24h', '7d', '30d']),
    points: z.array(
      z.object({
        bucket: z.string(),
        calls: z.number(),
        failed: z.number(),
        refused: z.number(),
        p50Ms: nullable(z.number()),
        p95Ms: nullable(z.number()),
        p99Ms: nullable(z.number()),
        approvalWaits: z.number(),
        waitMedianS: nullable(z.number()),
      }),
    ),
  })
  .openapi('StatsSeries')

export const AuditEvent = z
  .object({
    id: z.string(),
    kind: z.string(),
    subject: z.string(),
    actor: z.object({ id: z.string(), name: z.string() }).catchall(z.unknown()),
    callId: nullable(z.string()),
    details: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .openapi('AuditEvent')

export const SweepReport = z.object({
  cutoff: nullable(z.string()),
  deleted: z.number(),
  exported: z.number(),
  file: nullable(z.string()),
  error: nullable(z.string()),
})

export const Agent = z
  .object({
    id: z.string(),
    name: z.string(),
    aliases: z.array(z.string()),
    description: z.string(),
    declared: z.boolean().describe('still in the config (false: only its stored bindings and runs remain)'),
    model: nullable(z.object({ provider: z.string(), model: z.string() })).describe('what it runs with; null when it has no model'),
    available: z.boolean().describe('whether a run could start now'),
    unavailableReason: nullable(z.string()).describe('why its runs would be refused now'),
    skills: z.array(z.string()).describe('its bound skills that the caller may see'),
  })
  .openapi('Agent')

export const AgentList = z.object({ agents: z.array(Agent) })
export const SkillsPrompt = z.object({ agent: z.string(), prompt: z.string() })

const tokens = nullable(z.number())
const RunStep = z
  .object({
    index: z.number(),
    kind: z
      .enum(['text', 'tool', 'model', 'sampling', 'input'])
      .describe(
        'model: one call of the model (its timing, usage and cost); text: what it wrote; tool: one tool call; sampling: a model completion a tool call asked for (an imported MCP server sampling: answered with the run model, its usage and cost counted); input: what a tool call asks a person (an MCP elicitation; status awaiting_input until answered at POST /api/runs/{id}/inputs/{inputId})',
      ),
    text: z.string().optional(),
    tool: z.string().optional(),
    toolCallId: z.string().optional(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    error: z.string().optional(),
    status: z.string().optional().describe('a tool call: called, ok, error, awaiting_approval, needs_auth or denied; a model step: running, ok or error'),
    callId: z.string().optional(),
    approvalId: z.string().optional(),
    startedAt: nullable(z.string()).describe("when it started (a tool call: its audit row's start); null when not known"),
    finishedAt: nullable(z.string()),
    durationMs: nullable(z.number()),
    stepNumber: z.number().optional().describe("a model step: its number among the run's model steps, from 1, across pauses"),
    model: z.object({ provider: z.string(), modelId: z.string() }).optional(),
    usage: z
      .object({
        inputTokens: tokens,
        outputTokens: tokens,
        cachedInputTokens: tokens.describe('input tokens read from the provider cache (part of inputTokens)'),
        cacheWriteTokens: tokens.describe('input tokens written to the provider cache (part of inputTokens)'),
        reasoningTokens: tokens.describe('part of outputTokens'),
      })
      .optional()
      .describe('as the provider reported it; null where it did not'),
    costUsd: nullable(z.number()).optional().describe("from the model's configured pricing; null without pricing or without reported usage"),
    finishReason: nullable(z.string()).optional(),
    firstChunkMs: nullable(z.number()).optional().describe('time from the call to its first streamed chunk'),
  })
  .openapi('RunStep')

export const RunInput = z
  .object({
    id: z.string(),
    runId: z.string(),
    toolCallId: nullable(z.string()),
    tool: nullable(z.string()),
    step: nullable(z.number()).describe('the run step that shows it'),
    mode: z.enum(['form', 'url']).describe('form: fill requestedSchema; url: open url, then accept (done) or cancel'),
    message: z.string(),
    requestedSchema: nullable(z.record(z.string(), z.unknown())),
    url: nullable(z.string()),
    status: z
      .enum(['pending', 'accepted', 'declined', 'cancelled', 'expired', 'gone'])
      .describe(
        "expired: no answer within the approvals wait timeout or the call's deadline, whichever came first (the call was told cancel); gone: the manager holding the call stopped",
      ),
    content: nullable(z.record(z.string(), z.unknown())).describe(
      "an accepted form's content, redacted as the call's audit keeps it (secret-looking and password/writeOnly fields, the call's secrets)",
    ),
    approverRole: z
      .enum(['operator', 'admin'])
      .describe("who besides the person the run acts for may answer: admin for an admin's run or a dangerous tool (as deciding its approval would need)"),
    answeredBy: nullable(z.object({ id: z.string(), name: z.string() })),
    createdAt: z.string(),
    expiresAt: z.string(),
    decidedAt: nullable(z.string()),
  })
  .openapi('RunInput')

export const Run = z
  .object({
    id: z.string(),
    agent: z.string(),
    requester: who,
    status: z.enum(['running', 'awaiting_approval', 'needs_auth', 'completed', 'failed']),
    prompt: z.string(),
    output: nullable(z.string()),
    error: nullable(z.string()),
    traceId: nullable(z.string()),
    test: z.boolean(),
    overrides: nullable(z.record(z.string(), z.string())),
    pending: z.array(
      z.object({
        toolCallId: z.string(),
        tool: z.string(),
        approvalId: nullable(z.string()),
        provider: nullable(z.string()).describe('needs_auth: the OAuth provider the person connects before the call runs'),
        authorizationUrl: nullable(z.string()).describe('needs_auth: where the person connects it; the run resumes by itself once they have'),
      }),
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: nullable(z.string()),
    totals: z
      .object({
        durationMs: nullable(z.number()).describe('from start to end; null while it has not ended'),
        modelMs: z.number().describe('time in model calls'),
        toolMs: z.number().describe('time in tool calls'),
        approvalWaitMs: z.number().describe('time paused for a person (an approval, or an account to connect), apart from the work'),
        inputTokens: z.number(),
        outputTokens: z.number(),
        cachedInputTokens: z.number(),
        costUsd: nullable(z.number()).describe('the sum of the model steps that have a cost; null when none has'),
        modelSteps: z.number(),
      })
      .describe('totals over its steps, kept with the run'),
    steps: z.array(RunStep).optional(),
    inputs: z.array(RunInput).optional().describe("what the run's tool calls asked a person for, pending or decided (with the steps)"),
  })
  .openapi('Run')

export const ModelRequest = z
  .object({
    system: nullable(z.string()),
    tools: z.array(z.object({ name: z.string(), description: nullable(z.string()) })).describe('the tools offered on that step'),
    messages: z.array(z.unknown()).describe("the AI SDK's prompt messages after the system prompt"),
  })
  .openapi('ModelRequest')

export const RunPage = page(Run)

export const TestRunResult = z
  .object({
    output: nullable(z.string()),
    tools: z.array(z.object({ name: z.string(), called: z.boolean(), ok: z.boolean() })),
    approvals: z.array(z.object({ tool: z.string(), approvalId: nullable(z.string()) })),
    runId: z.string(),
    verdict: z.enum(['pass', 'failed', 'incomplete', 'unconfirmed']),
    reason: z.string(),
  })
  .openapi('TestRunResult')

export const Approval = z
  .object({
    id: z.string(),
    skill: z.string(),
    class: klass,
    input: z.unknown().describe('the input as audited: secrets redacted'),
    inputHash: z.string(),
    requester: z.object({
      id: z.string(),
      name: z.string(),
      kind: z.string(),
      user: nullable(z.object({ id: z.string(), displayName: z.string() })),
      auth: nullable(z.string()),
      keyId: nullable(z.string()),
    }),
    onBehalfOf: nullable(who),
    agent: nullable(z.string()),
    edge: nullable(who),
    conversationId: nullable(z.string()),
    callId: z.string(),
    reason: z.string(),
    approvalsRequired: z.number(),
    approverRole: z.string(),
    sopRequired: z.boolean(),
    status: z.enum(['pending', 'approved', 'rejected', 'expired', 'executed', 'withdrawn']),
    createdAt: z.string(),
    expiresAt: z.string(),
    decidedAt: nullable(z.string()),
    executedCallId: nullable(z.string()),
    decisions: z.array(
      z.object({
        approver: z.object({
          id: z.string(),
          name: z.string(),
          role: z.string(),
          displayName: z.string(),
          auth: nullable(z.string()),
          keyId: nullable(z.string()),
        }),
        decision: z.enum(['approve', 'reject']),
        comment: nullable(z.string()),
        sop: nullable(z.object({ id: z.string(), hash: z.string() })),
        createdAt: z.string(),
      }),
    ),
  })
  .openapi('Approval')

export const ApprovalPage = page(Approval)
export const ApprovalWithHistory = Approval.extend({ history: z.array(AuditEvent) })

export const Policy = z
  .object({
    id: z.string(),
    skill: z.string(),
    level: z.enum(['global', 'agent', 'role', 'user', 'edge']),
    subject: z.string(),
    decision: z.enum(['ALWAYS', 'ASK', 'DENY']),
    createdBy: z.string(),
    createdAt: z.string(),
  })
  .openapi('Policy')

export const Grant = z
  .object({
    id: z.string(),
    approvalId: z.string(),
    skill: z.string(),
    agent: nullable(z.string()),
    conversationId: z.string(),
    requester: who,
    onBehalfOf: nullable(who),
    edge: nullable(who),
    grantedBy: who,
    createdAt: z.string(),
    expiresAt: z.string(),
    status: z.string(),
    revokedAt: nullable(z.string()),
    revokedBy: nullable(who),
  })
  .openapi('Grant')

export const GrantPage = page(Grant)

export const Decided = Approval.extend({
  grant: Grant.optional().describe('with scope conversation: the grant it left'),
  policy: Policy.optional().describe('with scope always: the ALWAYS override it left'),
  grantProblem: z.string().optional(),
})

export const SopCheck = z.union([
  z.object({ ok: z.literal(true), sop: z.object({ id: z.string(), hash: z.string() }) }),
  z.object({ ok: z.literal(false), message: z.string() }),
])

export const PolicyList = z.object({ policies: z.array(Policy) })

export const PolicySubject = z
  .object({ id: z.string(), level: z.enum(['self', 'role', 'agent', 'user']), subject: z.string(), label: z.string(), note: nullable(z.string()) })
  .openapi('PolicySubject')

export const EffectiveCell = z
  .object({
    subject: z.string(),
    decision: z.enum(['ALWAYS', 'ASK', 'DENY']),
    reason: z.string(),
    requirement: z.object({ approvals: z.number(), approverRole: z.enum(['operator', 'admin']), sop: z.boolean() }),
    policyId: nullable(z.string()),
    refusal: nullable(z.string()).describe("why the subject can't call the skill whatever the policy says"),
    refusalCause: nullable(z.enum(['disabled', 'not_shared', 'not_bound', 'role'])),
  })
  .openapi('EffectiveCell')

export const EffectivePolicy = z
  .object({
    subjects: z.array(PolicySubject),
    skills: z.array(z.object({ key: z.string(), class: klass, scope: z.enum(['manager', 'host']), cells: z.array(EffectiveCell) })),
    nextCursor: nullable(z.string()),
  })
  .openapi('EffectiveMatrix')

export const ConnectionValue = z
  .object({
    kind: z.enum(['secret', 'setting']),
    name: z.string(),
    scope: z.enum(['global', 'agent', 'user']),
    subject: nullable(z.string()),
    version: z.number(),
    updatedAt: z.string(),
    updatedBy: z.string(),
    value: z.string().optional().describe('settings only'),
  })
  .openapi('ConnectionValue')

export const SecretList = z.object({ secrets: z.array(ConnectionValue) })
export const SettingList = z.object({ settings: z.array(ConnectionValue) })

export const Learning = z
  .object({
    id: z.string(),
    category: z.enum(['discovery', 'pattern']),
    title: z.string(),
    content: z.string(),
    tags: z.array(z.string()),
    importance: z.number(),
    status: z.enum(['active', 'deprecated']),
    verification: nullable(z.enum(['verified', 'disproved'])),
    skill: nullable(z.string()),
    agent: nullable(z.string()),
    callId: nullable(z.string()),
    createdBy: who,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Learning')

export const LearningList = z.object({ learnings: z.array(Learning) })

export const Edge = z
  .object({
    id: z.string(),
    name: z.string(),
    labels: z.record(z.string(), z.string()),
    hostname: nullable(z.string()),
    os: nullable(z.string()),
    arch: nullable(z.string()),
    version: nullable(z.string()),
    online: z.boolean(),
    managerId: nullable(z.string()),
    connectedSince: nullable(z.string()),
    lastSeenAt: nullable(z.string()),
    secrets: z.array(z.string()),
    skills: z.array(z.object({ key: z.string(), class: z.string(), available: z.boolean(), unavailableReason: nullable(z.string()) })),
    createdAt: z.string(),
    createdBy: z.string(),
    revokedAt: nullable(z.string()),
    tokenExpiresAt: nullable(z.string()),
  })
  .openapi('Edge')

export const EdgeList = z.object({ edges: z.array(Edge) })
export const EdgeToken = z.object({ edge: Edge, token: z.string().describe('shown once') })

export const User = z
  .object({
    id: z.string(),
    name: z.string(),
    displayName: nullable(z.string()),
    role: nullable(role),
    groups: z.array(z.string()),
    grantedRole: nullable(role),
    external: nullable(z.object({ issuer: z.string(), subject: z.string() })),
    createdAt: z.string(),
    disabledAt: nullable(z.string()),
  })
  .openapi('User')

export const UserList = z.object({ users: z.array(User) })

export const Group = z.object({ id: z.string(), name: z.string(), role: nullable(role), members: z.array(z.string()), createdAt: z.string() }).openapi('Group')

export const GroupList = z.object({ groups: z.array(Group) })

export const Sop = z
  .object({
    id: z.string(),
    title: z.string(),
    skills: z.array(z.string()),
    hash: z.string(),
    keyName: z.string(),
    registeredBy: z.string(),
    registeredAt: z.string(),
    revokedAt: nullable(z.string()),
  })
  .openapi('Sop')

export const SopList = z.object({ sops: z.array(Sop) })
export const SopRevoked = z.object({ id: z.string(), revoked: z.literal(true) })

const SourceEntry = z
  .object({
    name: z.string(),
    state: z.string(),
    reason: nullable(z.string()),
    skills: z.array(z.string()),
    problems: z.array(z.string()),
    details: z.record(z.string(), nullable(z.string())),
  })
  .openapi('SourceEntry')
const SourceReport = z.object({ skills: z.array(z.string()), entries: z.array(SourceEntry), findings: z.array(Finding) }).openapi('SourceReport')

// Keyed by kind (code, built-in, pack, agent-skill, http, mcp, edge): a new kind of source changes no schema.
export const SourcesReport = z.record(z.string(), SourceReport).openapi('SourcesReport')

export const ReloadReport = z
  .object({
    added: z.array(z.string()),
    removed: z.array(z.string()),
    sources: SourcesReport,
    sync: z.object({ dryRun: z.boolean(), changes: z.array(z.unknown()), warnings: z.array(z.unknown()) }),
  })
  .openapi('ReloadReport')

export const EventPage = page(AuditEvent)
export const GroupCreated = z.object({ group: Group })
export const UserCreated = z.object({ user: User })

export const OAuthConnection = z
  .object({
    provider: z.string(),
    title: z.string(),
    account: z.enum(['person', 'service']),
    subject: nullable(z.string()).describe('the person; null for the service account'),
    state: z.enum(['ready', 'needs_auth']),
    scopes: z.array(z.string()).describe('granted'),
    missingScopes: z.array(z.string()).describe("the provider's default scopes not granted"),
    expiresAt: nullable(z.string()).describe('when the access token expires; it is refreshed before then'),
    connectedAt: z.string(),
    connectedBy: z.string(),
    updatedAt: z.string(),
    reason: nullable(z.string()).describe('why it needs the person again'),
    revoked: z.boolean().optional().describe('on disconnect: whether the provider revoked the tokens too'),
  })
  .openapi('OAuthConnection')

export const OAuthConnections = z.object({
  providers: z.array(z.object({ name: z.string(), title: z.string(), defaultScopes: z.array(z.string()) })),
  connections: z.array(OAuthConnection),
})

export const AuthorizationLink = z.object({
  authorizationUrl: z.string().describe('open it in the browser of the person connecting: it starts the flow at the provider'),
  expiresInMs: z.number(),
})

export const Conversation = z
  .object({
    id: z.string(),
    calls: z.array(AuditEntry).describe('its calls, oldest first (the first 2,000)'),
    approvals: z.array(Approval).describe('the approval requests made in it, oldest first (the first 500)'),
    // A union, not Run.nullable(): that would carry the name Run and make every Run nullable in the document.
    run: z.union([Run, z.null()]).describe('for run:<id> and test-run:<id>, the agent run, when the caller may read it'),
    truncated: z.boolean().describe('whether the conversation holds more calls or approval requests than these'),
  })
  .openapi('Conversation')
