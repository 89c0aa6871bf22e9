import type { Skill } from '../../../skill/create-skill.js'
import type { Caller, JsonSchema } from '../../../skill/skill-types.js'

type Operation = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: unknown) => ({ 'application/json': { schema } })

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input or request',
  401: 'Missing or unknown API key',
  403: 'Denied',
  404: 'Not found',
  409: 'The request is no longer pending, or already decided by this approver',
  410: 'Approval expired',
  413: 'Request body too large',
  502: 'Executor error, invalid output or edge unavailable',
  503: 'Skill unavailable or disabled',
  504: 'Deadline exceeded',
}

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'Error', content: json(ref('Failure')) }]))

const COMPONENT_SCHEMAS: Record<string, unknown> = {
  Failure: {
    type: 'object',
    required: ['ok', 'error'],
    properties: {
      ok: { const: false },
      callId: { type: 'string', description: 'Present when the call reached the pipeline' },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
      },
    },
  },
  Success: {
    type: 'object',
    required: ['ok', 'data', 'callId'],
    properties: { ok: { const: true }, data: {}, callId: { type: 'string' } },
  },
  SkillSummary: {
    type: 'object',
    properties: {
      key: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      class: { enum: ['safe', 'mutating', 'dangerous'] },
      scope: { enum: ['manager', 'host'] },
      category: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      source: { type: 'string' },
      enabled: { type: 'boolean' },
      available: { type: 'boolean' },
      unavailableReason: { type: ['string', 'null'] },
      agents: { type: 'array', items: { type: 'string' } },
    },
  },
  AuditEntry: {
    type: 'object',
    properties: {
      callId: { type: 'string' },
      parentCallId: { type: ['string', 'null'] },
      skill: { type: 'string' },
      caller: { type: 'object' },
      agent: { type: ['string', 'null'] },
      status: { enum: ['running', 'ok', 'error', 'denied', 'timeout', 'interrupted', 'approval_required'] },
      input: {},
      result: {},
      resultTruncated: { type: 'boolean' },
      error: { type: ['object', 'null'] },
      startedAt: { type: 'string', format: 'date-time' },
      finishedAt: { type: ['string', 'null'] },
      durationMs: { type: ['number', 'null'] },
      approvalId: { type: ['string', 'null'] },
    },
  },
}

const invokeExtras = {
  agent: { type: 'string', description: 'Agent the call is made for (id, name or alias)' },
  conversationId: { type: 'string' },
  edgeId: { type: 'string', description: 'Edge to run a host-scope skill on' },
  approvalId: { type: 'string', description: 'Run with this approved request (same input only; runs once)' },
  wait: {
    oneOf: [{ type: 'boolean' }, { type: 'integer', minimum: 1, maximum: 3600 }],
    description: 'When approval is needed, wait for the decision (true: the configured time; a number: seconds)',
  },
}

const keyParam = { name: 'key', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' } }
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } }
const decisionOperation = (summary: string) => ({
  summary,
  parameters: [idParam],
  requestBody: {
    content: json({
      type: 'object',
      additionalProperties: false,
      properties: { comment: { type: 'string' }, sopId: { type: 'string' } },
    }),
  },
  responses: { 200: { description: 'The request after the decision' }, ...errors(400, 401, 403, 404, 409) },
})
const queryParams = (...names: string[]) => names.map((name) => ({ name, in: 'query', schema: { type: 'string' } }))

/** OpenAPI 3.1 for the HTTP API, with one invoke operation per visible skill documenting its own schemas. */
export function buildOpenApi(options: { version: string; skills: Skill[]; caller?: Caller }): Record<string, unknown> {
  const { caller } = options
  const inputOf = (skill: Skill) => (caller ? skill.inputSchemaFor({ caller, agent: caller.kind === 'agent' ? caller.agentId : null }) : skill.input.jsonSchema)
  const schemas: Record<string, unknown> = structuredClone(COMPONENT_SCHEMAS)
  const paths: Record<string, Record<string, Operation>> = {
    '/api/health': { get: { summary: 'Liveness and database', security: [], responses: { 200: { description: 'Healthy' } } } },
    '/api/skills': {
      get: {
        summary: 'List the skills the caller may see',
        parameters: queryParams('class', 'category', 'tag', 'source', 'agent', 'q', 'scope', 'available'),
        responses: {
          200: { description: 'Skills', content: json({ type: 'object', properties: { skills: { type: 'array', items: ref('SkillSummary') } } }) },
          ...errors(400, 401),
        },
      },
    },
    '/api/skills/{key}': {
      get: {
        summary: 'One skill with its schemas and catalog fields',
        parameters: [keyParam],
        responses: { 200: { description: 'Skill detail' }, ...errors(401, 404) },
      },
      patch: {
        summary: 'Edit the catalog side of a skill (admin)',
        parameters: [keyParam],
        requestBody: {
          content: json({
            type: 'object',
            additionalProperties: false,
            properties: {
              title: { type: ['string', 'null'] },
              description: { type: ['string', 'null'] },
              systemPrompt: { type: ['string', 'null'] },
              tags: { type: ['array', 'null'], items: { type: 'string' } },
              enabled: { type: 'boolean' },
            },
          }),
        },
        responses: { 200: { description: 'Updated skill' }, ...errors(400, 401, 403, 404) },
      },
    },
    '/api/skills/{key}/invoke': {
      post: invokeOperation('Invoke any skill', { type: 'object', properties: { input: {}, ...invokeExtras } }, [keyParam]),
    },
    '/api/audit': {
      get: {
        summary: 'Audit rows, newest first (operator or admin)',
        parameters: [
          ...queryParams('skill', 'status', 'agent', 'caller', 'parentCallId', 'cursor'),
          ...['from', 'to'].map((name) => ({ name, in: 'query', schema: { type: 'string', format: 'date-time' } })),
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
        ],
        responses: {
          200: {
            description: 'A page of audit entries',
            content: json({
              type: 'object',
              properties: { items: { type: 'array', items: ref('AuditEntry') }, nextCursor: { type: ['string', 'null'] } },
            }),
          },
          ...errors(400, 401, 403),
        },
      },
    },
    '/api/audit/{callId}': {
      get: {
        summary: 'One audit entry',
        parameters: [{ name: 'callId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'Entry', content: json(ref('AuditEntry')) }, ...errors(401, 403, 404) },
      },
    },
    '/api/agents': {
      get: { summary: 'Agents and their bound skills', responses: { 200: { description: 'Agents' }, ...errors(401) } },
    },
    '/api/agents/{id}/runs': {
      get: {
        summary: "The agent's runs, newest first",
        parameters: [idParam, ...queryParams('status', 'cursor', 'limit')],
        responses: { 200: { description: '{ items, nextCursor }' }, ...errors(400, 401, 404) },
      },
      post: {
        summary: 'Run the agent on a prompt (operator, admin, or its own agent key); answers once it completes, fails or waits for approval',
        parameters: [idParam],
        requestBody: { content: json({ type: 'object', required: ['prompt'], properties: { prompt: { type: 'string', minLength: 1 } }, additionalProperties: false }) },
        responses: { 201: { description: 'The run with its steps' }, ...errors(400, 401, 403, 404) },
      },
    },
    '/api/agents/{id}/test-runs': {
      post: {
        summary: 'Test-run the agent with in-memory config changes (never saved) and get a verdict',
        parameters: [idParam],
        requestBody: {
          content: json({
            type: 'object',
            required: ['input'],
            properties: {
              input: { type: 'string', minLength: 1 },
              expectTool: { type: 'string' },
              set: { type: 'object', additionalProperties: { type: 'string' } },
            },
            additionalProperties: false,
          }),
        },
        responses: { 200: { description: '{ output, tools, approvals, verdict, reason, runId }' }, ...errors(400, 401, 403, 404) },
      },
    },
    '/api/runs/{id}': {
      get: { summary: 'One run with its steps', parameters: [idParam], responses: { 200: { description: 'Run' }, ...errors(401, 404) } },
    },
    '/api/agents/{id}/skills-prompt': {
      get: {
        summary: "The <available_skills> system-prompt fragment for an agent (\"\" when it may see none)",
        parameters: [idParam],
        responses: { 200: { description: '{ agent, prompt }' }, ...errors(401, 404) },
      },
    },
    '/api/agents/{id}/skills-export': {
      get: {
        summary: "The agent's instruction-skill files, templates rendered, as a tar (admins or the agent's own key)",
        parameters: [idParam, { name: 'user', in: 'query', schema: { type: 'string' } }],
        responses: { 200: { description: 'application/x-tar', content: { 'application/x-tar': { schema: { type: 'string', format: 'binary' } } } }, ...errors(400, 401, 404) },
      },
    },
    '/api/sources': {
      get: {
        summary: 'Configured sources: MCP servers with their connection state, pack and instruction-skill folders with their findings (admin)',
        responses: { 200: { description: '{ mcp, packs, instructions }' }, ...errors(401, 403) },
      },
    },
    '/api/sources/reload': {
      post: {
        summary: 'Load the skill pack folders again, reconnect MCP servers that are down and list the tools of the rest, then sync the catalog (admin)',
        responses: { 200: { description: '{ added, removed, packs, findings, mcp, sync }' }, ...errors(401, 403) },
      },
    },
    '/api/audit/events': {
      get: {
        summary: 'Audited changes that are not calls: policies, approval transitions, SOPs (operator or admin)',
        parameters: queryParams('subject', 'kind', 'cursor', 'limit'),
        responses: { 200: { description: 'A page of events' }, ...errors(400, 401, 403) },
      },
    },
    '/api/approvals': {
      get: {
        summary: 'Approval requests, newest first (approvers see all, others their own)',
        parameters: queryParams('status', 'skill', 'agent', 'cursor', 'limit'),
        responses: { 200: { description: 'A page of requests' }, ...errors(400, 401) },
      },
    },
    '/api/approvals/{id}': {
      get: { summary: 'One request with its decisions and history', parameters: [idParam], responses: { 200: { description: 'Request' }, ...errors(401, 404) } },
    },
    '/api/approvals/{id}/approve': { post: decisionOperation('Approve a request (dangerous: cite sopId)') },
    '/api/approvals/{id}/reject': { post: decisionOperation('Reject a request') },
    '/api/policies': {
      get: { summary: 'Policy overrides (admin)', responses: { 200: { description: 'Policies' }, ...errors(401, 403) } },
      put: {
        summary: 'Set the override for (skill, level, subject) (admin)',
        requestBody: {
          content: json({
            type: 'object',
            required: ['skill', 'level', 'decision'],
            additionalProperties: false,
            properties: {
              skill: { type: 'string', description: 'A skill key or "*"' },
              level: { enum: ['global', 'agent', 'role', 'user'] },
              subject: { type: 'string' },
              decision: { enum: ['ALWAYS', 'ASK', 'DENY'] },
            },
          }),
        },
        responses: { 200: { description: 'The policy' }, ...errors(400, 401, 403) },
      },
    },
    '/api/policies/{id}': {
      delete: { summary: 'Clear an override (admin)', parameters: [idParam], responses: { 200: { description: 'Cleared' }, ...errors(401, 403, 404) } },
    },
    '/api/sops': {
      get: { summary: 'Registered signed procedures (operator or admin)', responses: { 200: { description: 'SOPs' }, ...errors(401, 403) } },
      post: {
        summary: 'Register a signed procedure (admin)',
        requestBody: {
          content: json({
            type: 'object',
            required: ['document', 'signature'],
            additionalProperties: false,
            properties: { document: { type: 'string' }, signature: { type: 'string', description: 'The JSON of FILE.sig' } },
          }),
        },
        responses: { 201: { description: 'Registered' }, ...errors(400, 401, 403) },
      },
    },
    '/api/sops/{id}/revoke': {
      post: { summary: 'Revoke a procedure (admin)', parameters: [idParam], responses: { 200: { description: 'Revoked' }, ...errors(401, 403, 404) } },
    },
  }

  for (const skill of options.skills) {
    const inputName = `${skill.key}_input`
    // $id makes a schema's own "#/$defs/..." references resolve inside it, not against this document.
    schemas[inputName] = { $id: `urn:skillplane:skill:${skill.key}:input`, ...inputOf(skill) }
    const body: JsonSchema = { type: 'object', additionalProperties: false, properties: { input: ref(inputName), ...invokeExtras } }
    const operation = invokeOperation(`${skill.title} (${skill.class})`, body, [], skill)
    if (skill.output) {
      const outputName = `${skill.key}_output`
      schemas[outputName] = { $id: `urn:skillplane:skill:${skill.key}:output`, ...skill.output.jsonSchema }
      ;(operation.responses as Record<string, unknown>)['200'] = {
        description: 'Result',
        content: json({ allOf: [ref('Success'), { properties: { data: ref(outputName) } }] }),
      }
    }
    paths[`/api/skills/${skill.key}/invoke`] = { post: operation }
  }

  return {
    openapi: '3.1.0',
    info: { title: 'skillplane', version: options.version, description: 'Invoke, inspect and audit agent skills.' },
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'A key from `skillplane keys create`' } },
      schemas,
    },
  }
}

function invokeOperation(summary: string, body: JsonSchema, parameters: unknown[], skill?: Skill): Operation {
  return {
    summary,
    ...(skill && { description: skill.description, operationId: `invoke_${skill.key}`, tags: [skill.category] }),
    parameters,
    requestBody: { required: false, content: json(body) },
    responses: {
      200: { description: 'Result', content: json(ref('Success')) },
      202: { description: 'Approval required', content: json(ref('Failure')) },
      ...errors(400, 401, 403, 404, 410, 413, 502, 503, 504),
    },
  }
}
