import type { z } from 'zod'
import { auditHistogramSchema, auditQuerySchema } from '../../../audit/index.js'
import * as schemas from '../request-schemas.js'

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** OpenAPI path (`{param}` for path parameters), as the app serves it. */
  path: string
  summary: string
  query?: z.ZodObject
  body?: z.ZodType
  /** The success status and what it carries (a component name, or words). */
  /** `text`: a plain-text body rather than JSON; `eventStream`: server-sent events. */
  ok: { status: number; description: string; component?: string; list?: { key: string; component: string }; text?: boolean; eventStream?: boolean }
  /** The error statuses it may answer, each with the Failure body. */
  errors: number[]
  /** No key needed. */
  open?: boolean
  /** The body is multipart/form-data with these fields (a file part among them), not JSON. */
  multipart?: boolean
}

/** Every route of the HTTP API but the per-skill invoke paths (those come from the skills). */
export const OPERATIONS: OperationSpec[] = [
  { method: 'get', path: '/api/health', summary: 'Liveness and database', ok: { status: 200, description: 'Healthy' }, errors: [503], open: true },
  {
    method: 'get',
    path: '/auth/config',
    summary:
      "How the console's sign-in page may sign in: { oidc: { issuer, signInUrl } } with an identity provider configured, else { oidc: null }; session: whether the request's cookie holds a live console session",
    ok: { status: 200, description: '{ oidc, session }' },
    errors: [],
    open: true,
  },
  {
    method: 'get',
    path: '/api/health/live',
    summary: 'Liveness probe: the process is up and serving (never reads the database)',
    ok: { status: 200, description: 'Live' },
    errors: [],
    open: true,
  },
  {
    method: 'get',
    path: '/api/health/ready',
    summary: 'Readiness probe: 503 while the database is unreachable',
    ok: { status: 200, description: 'Ready' },
    errors: [503],
    open: true,
  },
  {
    method: 'get',
    path: '/api/me',
    summary: 'The caller this key, token or console session authenticates as (kind, name, role or agent, and how) and the abilities it holds',
    ok: {
      status: 200,
      description:
        '{ caller, abilities, csrfToken? } (abilities: every ability of the table in src/access, true when the caller holds it; csrfToken: for a console session, the header x-csrf-token its changes send)',
    },
    errors: [401],
  },
  {
    method: 'get',
    path: '/api/skills',
    summary: 'List the skills the caller may see',
    query: schemas.skillListQuery,
    ok: { status: 200, description: 'Skills', list: { key: 'skills', component: 'SkillSummary' } },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/api/skills/search',
    summary: 'Discover the skills the caller may use for a task (discover_skills), best first',
    query: schemas.skillSearchQuery,
    ok: { status: 200, description: '{ results, omitted }' },
    errors: [400, 401, 403],
  },
  {
    method: 'get',
    path: '/api/skills/{key}',
    summary: 'One skill with its schemas and catalog fields',
    ok: { status: 200, description: 'Skill detail' },
    errors: [401, 404],
  },
  {
    method: 'patch',
    path: '/api/skills/{key}',
    summary: 'Edit the catalog side of a skill (admin)',
    body: schemas.skillEditBody,
    ok: { status: 200, description: 'Updated skill' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'put',
    path: '/api/skills/{key}/sharing',
    summary: 'Share a skill with all, named agents or named users; hidden from everyone else but admins (admin)',
    body: schemas.skillSharingBody,
    ok: { status: 200, description: '{ key, sharing, notes }' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'post',
    path: '/api/skills/install',
    summary:
      'Install skills into the data dir from a git URL, OWNER/REPO or archive URL: planned, validated and risk-scanned first; dryRun answers with the plan (admin)',
    body: schemas.skillInstallBody,
    ok: {
      status: 201,
      description: 'The install report: { dryRun, applied, source, skills: [{ name, change, diff, files, findings, risks }], installed } (200 for a dry run)',
    },
    errors: [400, 401, 403, 409],
  },
  {
    method: 'post',
    path: '/api/skills/upload',
    summary: 'Upload a .zip or .tar.gz bundle of skills and install it, kept under its SHA-256; high-risk findings need acceptRisk (admin)',
    body: schemas.skillUploadForm,
    multipart: true,
    ok: { status: 201, description: 'The install report, as for /api/skills/install (200 for a dry run)' },
    errors: [400, 401, 403, 409, 413],
  },
  {
    method: 'post',
    path: '/api/skills/{key}/rollback',
    summary: 'Put back the version of an installed skill that its last install or upload replaced (admin)',
    ok: { status: 200, description: '{ ok, name, restored, replaced }' },
    errors: [401, 403, 404, 409],
  },
  {
    method: 'post',
    path: '/api/skills/{key}/invoke',
    summary: 'Invoke any skill',
    body: schemas.invokeBody,
    ok: { status: 200, description: 'Result', component: 'Success' },
    errors: [202, 400, 401, 403, 404, 410, 413, 502, 503, 504],
  },
  {
    method: 'get',
    path: '/api/audit',
    summary: 'Audit rows, newest first (operator or admin)',
    query: auditQuerySchema,
    ok: { status: 200, description: 'A page of audit entries', list: { key: 'items', component: 'AuditEntry' } },
    errors: [400, 401, 403],
  },
  {
    method: 'get',
    path: '/api/audit/histogram',
    summary: 'Calls and failures per minute, hour or day, with the audit filters (the last day by default)',
    query: auditHistogramSchema,
    ok: { status: 200, description: '{ bucket, from, to, points: [{ at, calls, failed }] }' },
    errors: [400, 401, 403],
  },
  {
    method: 'get',
    path: '/api/audit/events',
    summary: 'Audited changes that are not calls: policies, approval transitions, SOPs (operator or admin)',
    query: schemas.eventsQuery,
    ok: { status: 200, description: 'A page of events' },
    errors: [400, 401, 403],
  },
  {
    method: 'post',
    path: '/api/audit/sweep',
    summary:
      'Apply audit retention now (audit.retentionDays, audit.maxRows; exported to audit.exportDir first when set): { cutoff, deleted, exported, file, error }; audited (admin)',
    ok: { status: 200, description: 'The sweep report' },
    errors: [401, 403],
  },
  {
    method: 'get',
    path: '/api/audit/{callId}',
    summary: 'One audit entry',
    ok: { status: 200, description: 'Entry', component: 'AuditEntry' },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/api/agents',
    summary: 'Agents, their models, whether they can run now, and their bound skills',
    ok: { status: 200, description: 'Agents', list: { key: 'agents', component: 'Agent' } },
    errors: [401],
  },
  {
    method: 'get',
    path: '/api/agents/{id}/skills-prompt',
    summary: 'The <available_skills> system-prompt fragment for an agent ("" when it may see none)',
    ok: { status: 200, description: '{ agent, prompt }' },
    errors: [401, 404],
  },
  {
    method: 'get',
    path: '/api/agents/{id}/skills-export',
    summary: "The agent's instruction-skill files, templates rendered, as a tar (admins or the agent's own key)",
    query: schemas.exportQuery,
    ok: { status: 200, description: 'application/x-tar' },
    errors: [400, 401, 404, 500],
  },
  {
    method: 'post',
    path: '/api/agents/{id}/runs',
    summary:
      'Run the agent on a prompt (operator, admin, or its own agent key); answers once it completes, fails or waits for approval, or at once (202, the run as started) with `wait: false`',
    body: schemas.runStartBody,
    ok: { status: 201, description: 'The run with its steps (202 and the run as started, without waiting, for `wait: false`)' },
    errors: [400, 401, 403, 404, 503],
  },
  {
    method: 'get',
    path: '/api/agents/{id}/runs',
    summary: "The agent's runs, newest first",
    query: schemas.runListQuery,
    ok: { status: 200, description: '{ items, nextCursor }' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'post',
    path: '/api/agents/{id}/test-runs',
    summary: 'Test-run the agent with in-memory config changes (never saved) and get a verdict',
    body: schemas.testRunBody,
    ok: { status: 200, description: '{ output, tools, approvals, verdict, reason, runId }' },
    errors: [202, 400, 401, 403, 404, 503],
  },
  { method: 'get', path: '/api/runs/{id}', summary: 'One run with its steps', ok: { status: 200, description: 'Run' }, errors: [401, 403, 404] },
  {
    method: 'get',
    path: '/api/runs/{id}/events',
    summary:
      "Server-sent events of one run's steps as each is stored (on any manager): the steps so far, each new one, a step again when it changes (a call paused for approval, once decided), then the run as it ended (completed, failed or awaiting_approval), and the stream closes. Resumes after Last-Event-ID",
    ok: {
      status: 200,
      description:
        'An event stream: `step` events (`id` the write number to resume from, `data` the step JSON as GET /api/runs/{id} shows it), then one `end` event (`data` the run JSON without steps)',
      eventStream: true,
    },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/api/approvals',
    summary: 'Approval requests, newest first (approvers see all, others their own)',
    query: schemas.approvalListQuery,
    ok: { status: 200, description: 'A page of requests' },
    errors: [400, 401],
  },
  {
    method: 'get',
    path: '/api/approvals/grants',
    summary: 'Conversation grants, newest first (operator, admin)',
    query: schemas.grantListQuery,
    ok: { status: 200, description: '{ items: [grant], nextCursor }' },
    errors: [400, 401, 403],
  },
  {
    method: 'delete',
    path: '/api/approvals/grants/{id}',
    summary: 'Revoke a conversation grant now (its granter or an admin)',
    ok: { status: 200, description: 'The grant, revoked' },
    errors: [401, 403, 404, 409],
  },
  {
    method: 'get',
    path: '/api/events',
    summary:
      "Server-sent events of approval requests as they are created and decided (every manager's), each with the request as GET /api/approvals/{id} shows it; approvers see every request, others their own. Resumes after Last-Event-ID",
    ok: {
      status: 200,
      description:
        'An event stream: `event` is the audit event kind (approval.created, approval.approval, approval.approved, approval.grant_created, …), `data` JSON { id, kind, at, actor, approval } (grant events add scope and grant or policy)',
      eventStream: true,
    },
    errors: [401],
  },
  {
    method: 'get',
    path: '/api/approvals/{id}',
    summary: 'One request with its decisions and history',
    ok: { status: 200, description: 'Request' },
    errors: [401, 404],
  },
  {
    method: 'get',
    path: '/api/approvals/{id}/sop-check',
    summary: 'Whether a signed procedure could be cited to approve this request now (approvers), and why not',
    query: schemas.sopCheckQuery,
    ok: { status: 200, description: '{ ok: true, sop: { id, hash } } or { ok: false, message }' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'post',
    path: '/api/approvals/{id}/approve',
    summary: 'Approve a request (dangerous: cite sopId), once, for the rest of its conversation, or always for its agent',
    body: schemas.approveBody,
    ok: { status: 200, description: 'The request after the decision; with scope conversation also `grant`, with always also `policy`' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'post',
    path: '/api/approvals/{id}/reject',
    summary: 'Reject a request',
    body: schemas.decisionBody,
    ok: { status: 200, description: 'The request after the decision' },
    errors: [400, 401, 403, 404, 409],
  },
  { method: 'get', path: '/api/policies', summary: 'Policy overrides (admin)', ok: { status: 200, description: 'Policies' }, errors: [401, 403] },
  {
    method: 'get',
    path: '/api/policies/effective',
    summary:
      'The policy in effect (ALWAYS, ASK or DENY, why, the override that decided) per skill and subject, as the pipeline decides it; every key may ask about itself, admins about anyone',
    query: schemas.effectivePolicyQuery,
    ok: { status: 200, description: '{ subjects, skills: [{ key, class, scope, cells }], nextCursor }' },
    errors: [400, 401, 403],
  },
  {
    method: 'put',
    path: '/api/policies',
    summary: 'Set the override for (skill, level, subject) (admin)',
    body: schemas.policyBody,
    ok: { status: 200, description: 'The policy' },
    errors: [400, 401, 403],
  },
  { method: 'delete', path: '/api/policies/{id}', summary: 'Clear an override (admin)', ok: { status: 200, description: 'Cleared' }, errors: [401, 403, 404] },
  ...(['secret', 'setting'] as const).flatMap((kind): OperationSpec[] => [
    {
      method: 'get',
      path: `/api/${kind}s`,
      summary:
        kind === 'secret'
          ? 'Secrets: names, owners (global, agent, user), versions, when set; never values (admin)'
          : 'Settings with their values, owners and versions (admin)',
      ok: { status: 200, description: `{ ${kind}s }` },
      errors: [401, 403],
    },
    {
      method: 'put',
      path: `/api/${kind}s/{name}`,
      summary: `Set a ${kind} (a new version), globally or for one agent or user (admin)`,
      body: schemas.valueBody,
      ok: { status: 200, description: `The ${kind} as listed${kind === 'secret' ? ', without its value' : ''}` },
      errors: [400, 401, 403],
    },
    {
      method: 'delete',
      path: `/api/${kind}s/{name}`,
      summary: `Delete one owner's ${kind} (admin)`,
      query: schemas.valueOwnerQuery,
      ok: { status: 200, description: 'The deleted entry' },
      errors: [400, 401, 403, 404],
    },
  ]),
  {
    method: 'get',
    path: '/api/learnings',
    summary: 'Learnings skills left, newest first, with their importance now (admin)',
    query: schemas.learningListQuery,
    ok: { status: 200, description: '{ learnings }' },
    errors: [400, 401, 403],
  },
  ...(['verify', 'disprove'] as const).map((action): OperationSpec => ({
    method: 'post',
    path: `/api/learnings/{id}/${action}`,
    summary:
      action === 'verify'
        ? 'Verify a learning: importance +0.15 (at most 1), active again if deprecated; audited (admin)'
        : 'Disprove a learning: importance 0.05, no longer recalled or put in prompts; audited (admin)',
    ok: { status: 200, description: 'The learning as changed' },
    errors: [401, 403, 404],
  })),
  {
    method: 'get',
    path: '/api/edges',
    summary: 'Enrolled edges: labels, host, online, the manager holding the connection, skills offered (operator or admin)',
    ok: { status: 200, description: '{ edges }' },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/edges',
    summary: 'Enroll an edge; its token is in the answer, once (admin)',
    body: schemas.enrollEdgeBody,
    ok: { status: 201, description: '{ edge, token }' },
    errors: [400, 401, 403, 409],
  },
  {
    method: 'get',
    path: '/api/edges/{id}',
    summary: 'One edge, by id or name (operator or admin)',
    ok: { status: 200, description: 'The edge' },
    errors: [401, 403, 404],
  },
  {
    method: 'put',
    path: '/api/edges/{id}/secrets',
    summary: 'Set the secret names an edge may receive; calls of its packs carry the declared ones, per call (admin)',
    body: schemas.edgeSecretsBody,
    ok: { status: 200, description: 'The edge' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'post',
    path: '/api/edges/{id}/rotate',
    summary: 'Give an edge a new token, in the answer once: the old one stops at once and a connection made with it closes (admin)',
    body: schemas.rotateEdgeBody,
    ok: { status: 200, description: '{ edge, token }' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'delete',
    path: '/api/edges/{id}',
    summary: 'Revoke an edge: its token stops working and its connection closes at once (admin)',
    ok: { status: 200, description: 'The revoked edge' },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/api/users',
    summary: 'Users, the people behind keys: roles, groups, the role granted to them, disabled or not (admin)',
    ok: { status: 200, description: '{ users }' },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/users',
    summary: 'Add a user (admin)',
    body: schemas.addUserBody,
    ok: { status: 201, description: '{ user }' },
    errors: [400, 401, 403, 409],
  },
  {
    method: 'patch',
    path: '/api/users/{id}',
    summary: 'Change a user (by id or name): its own role, or disable it (every key of theirs stops at once) or enable it (admin)',
    body: schemas.userEditBody,
    ok: { status: 200, description: 'The user' },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'get',
    path: '/api/groups',
    summary: 'Groups with their roles and members (admin)',
    ok: { status: 200, description: '{ groups }' },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/groups',
    summary: 'Add a group (admin)',
    body: schemas.addGroupBody,
    ok: { status: 201, description: '{ group }' },
    errors: [400, 401, 403, 409],
  },
  {
    method: 'patch',
    path: '/api/groups/{id}',
    summary: 'Set the role a group (by id or name) grants its members (admin)',
    body: schemas.groupEditBody,
    ok: { status: 200, description: 'The group' },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'put',
    path: '/api/groups/{id}/members/{user}',
    summary: 'Add a user (by id or name) to a group (admin)',
    ok: { status: 200, description: 'The group' },
    errors: [401, 403, 404],
  },
  {
    method: 'delete',
    path: '/api/groups/{id}/members/{user}',
    summary: 'Remove a user from a group (admin)',
    ok: { status: 200, description: 'The group' },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/api/sops',
    summary: 'Registered signed procedures (operator or admin)',
    ok: { status: 200, description: 'SOPs' },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/sops',
    summary: 'Register a signed procedure (admin)',
    body: schemas.sopRegisterBody,
    ok: { status: 201, description: 'Registered' },
    errors: [400, 401, 403],
  },
  {
    method: 'post',
    path: '/api/sops/{id}/revoke',
    summary: 'Revoke a procedure (admin)',
    ok: { status: 200, description: 'Revoked' },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: '/api/sources',
    summary:
      'Configured sources: MCP servers with their connection state, HTTP skills and OpenAPI sources with their problems, pack and instruction-skill folders with their findings (admin)',
    ok: { status: 200, description: '{ mcp, http, openapi, packs, instructions }' },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/sources/reload',
    summary:
      'Load the skill pack folders and OpenAPI documents again, reconnect MCP servers that are down and list the tools of the rest, then sync the catalog (admin)',
    ok: { status: 200, description: '{ added, removed, packs, findings, mcp, openapi, sync }' },
    errors: [401, 403],
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics in the text exposition format (admin; served without a key on metrics.listen instead when that is set)',
    ok: { status: 200, description: 'Calls, latency, pending approvals, audit queue, MCP, edges and process metrics', text: true },
    errors: [401, 403],
  },
]
