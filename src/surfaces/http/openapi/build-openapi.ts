import { z } from 'zod'
import type { Skill, Caller, JsonSchema } from '../../../skill/index.js'
import { invokeBody } from '../request-schemas.js'
import { OPERATIONS, type OperationSpec } from './operations.js'

type Operation = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: unknown) => ({ 'application/json': { schema } })

const ERROR_TEXT: Record<number, string> = {
  202: 'Approval required',
  400: 'Invalid input or request',
  401: 'Missing or unknown API key',
  403: 'Denied',
  404: 'Not found',
  409: 'A conflict: the request is no longer pending or already decided by this approver; a skill not synced yet',
  410: 'Approval expired',
  413: 'Request body too large',
  500: 'A template failed to render, or an internal error',
  502: 'Executor error, invalid output or edge unavailable',
  503: 'Skill unavailable or disabled',
  504: 'Deadline exceeded',
}

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'Error', content: json(ref('Failure')) }]))

const INVOKE_ERRORS = [202, 400, 401, 403, 404, 410, 413, 502, 503, 504]
// Every invoke operation answers these: described once, referenced by each skill's operation.
const INVOKE_RESPONSES: Record<string, unknown> = {
  InvokeResult: { description: 'Result', content: json(ref('Success')) },
  ...Object.fromEntries(Object.entries(errors(...INVOKE_ERRORS)).map(([status, response]) => [`Invoke${status}`, response])),
}
const invokeResponses = {
  200: { $ref: '#/components/responses/InvokeResult' },
  ...Object.fromEntries(INVOKE_ERRORS.map((s) => [String(s), { $ref: `#/components/responses/Invoke${s}` }])),
}

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
      class: { enum: ['safe', 'mutating', 'dangerous'], description: 'in effect: the declared class or a catalog raise of it' },
      declaredClass: { enum: ['safe', 'mutating', 'dangerous'] },
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
  Agent: {
    type: 'object',
    required: ['id', 'name', 'aliases', 'description', 'declared', 'model', 'available', 'unavailableReason', 'skills'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      aliases: { type: 'array', items: { type: 'string' } },
      description: { type: 'string' },
      declared: { type: 'boolean', description: 'still in the config (false: only its stored bindings and runs remain)' },
      model: {
        type: ['object', 'null'],
        required: ['provider', 'model'],
        properties: { provider: { type: 'string' }, model: { type: 'string' } },
        description: 'what it runs with; null when it has no model',
      },
      available: { type: 'boolean', description: 'whether a run could start now' },
      unavailableReason: {
        type: ['string', 'null'],
        description: 'why its runs would be refused now (no model, its API key variable unset, no longer in the config)',
      },
      skills: { type: 'array', items: { type: 'string' }, description: 'its bound skills that the caller may see' },
    },
  },
  AuditEntry: {
    type: 'object',
    required: [
      'callId',
      'parentCallId',
      'skill',
      'caller',
      'agent',
      'conversationId',
      'edgeId',
      'edgeName',
      'status',
      'resultTruncated',
      'error',
      'startedAt',
      'finishedAt',
      'durationMs',
      'approvalId',
      'traceId',
      'grantId',
    ],
    properties: {
      callId: { type: 'string' },
      parentCallId: { type: ['string', 'null'] },
      skill: { type: 'string' },
      caller: {
        type: 'object',
        required: ['id', 'name', 'kind', 'role'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, kind: { type: 'string' }, role: { type: 'string' } },
      },
      agent: { type: ['string', 'null'] },
      conversationId: { type: ['string', 'null'] },
      edgeId: { type: ['string', 'null'], description: 'the edge a host-scope call ran on' },
      edgeName: { type: ['string', 'null'], description: 'its name at the time' },
      status: { enum: ['running', 'ok', 'error', 'denied', 'timeout', 'interrupted', 'approval_required'] },
      input: {},
      result: {},
      resultTruncated: { type: 'boolean' },
      error: {
        type: ['object', 'null'],
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
      startedAt: { type: 'string', format: 'date-time' },
      finishedAt: { type: ['string', 'null'] },
      durationMs: { type: ['number', 'null'] },
      approvalId: { type: ['string', 'null'] },
      traceId: { type: ['string', 'null'] },
      grantId: { type: ['string', 'null'], description: 'the conversation grant that let the call run without a request of its own' },
    },
  },
}

/** A request schema as JSON Schema, from the zod schema the route validates with. */
const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  return rest
}

function operation(spec: OperationSpec): Operation {
  const params = [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }))
  const query = spec.query ? jsonSchemaOf(spec.query) : undefined
  const queryProps = (query?.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((query?.required as string[] | undefined) ?? [])
  const { ok } = spec
  const content = ok.component
    ? json(ref(ok.component))
    : ok.list
      ? json({ type: 'object', properties: { [ok.list.key]: { type: 'array', items: ref(ok.list.component) } } })
      : ok.text
        ? { 'text/plain': { schema: { type: 'string' } } }
        : ok.eventStream
          ? { 'text/event-stream': { schema: { type: 'string' } } }
          : undefined
  return {
    summary: spec.summary,
    ...(spec.open && { security: [] }),
    ...(params.length + Object.keys(queryProps).length > 0 && {
      parameters: [
        ...params,
        ...Object.entries(queryProps).map(([name, schema]) => {
          const { description, ...rest } = schema
          return { name, in: 'query', ...(required.has(name) && { required: true }), ...(description !== undefined && { description }), schema: rest }
        }),
      ],
    }),
    ...(spec.body && {
      requestBody: {
        required: !(spec.body as z.ZodType).safeParse(undefined).success,
        content: spec.multipart ? { 'multipart/form-data': { schema: jsonSchemaOf(spec.body) } } : json(jsonSchemaOf(spec.body)),
      },
    }),
    responses: { [ok.status]: { description: ok.description, ...(content && { content }) }, ...errors(...spec.errors) },
  }
}

/** OpenAPI 3.1 for the HTTP API, with one invoke operation per visible skill documenting its own schemas. */
export function buildOpenApi(options: { version: string; skills: Skill[]; caller?: Caller }): Record<string, unknown> {
  const { caller } = options
  const inputOf = (skill: Skill) => (caller ? skill.inputSchemaFor({ caller, agent: caller.kind === 'agent' ? caller.agentId : null }) : skill.input.jsonSchema)
  const schemas: Record<string, unknown> = structuredClone(COMPONENT_SCHEMAS)
  const paths: Record<string, Record<string, Operation>> = {}
  for (const spec of OPERATIONS) (paths[spec.path] ??= {})[spec.method] = operation(spec)
  // A skill's own invoke path: the same body, its input schema in place of "any input".
  const extras = (jsonSchemaOf(invokeBody).properties ?? {}) as Record<string, unknown>
  const { input: _input, ...invokeExtras } = extras
  // The body's other fields are the same for every skill: each a shared schema, referenced.
  for (const [name, schema] of Object.entries(invokeExtras)) schemas[`Invoke_${name}`] = schema
  const extraRefs = Object.fromEntries(Object.keys(invokeExtras).map((name) => [name, ref(`Invoke_${name}`)]))

  for (const skill of options.skills) {
    const inputName = `${skill.key}_input`
    // $id makes a schema's own "#/$defs/..." references resolve inside it, not against this document.
    schemas[inputName] = { $id: `urn:skillplane:skill:${skill.key}:input`, ...inputOf(skill) }
    const body: JsonSchema = { type: 'object', additionalProperties: false, properties: { input: ref(inputName), ...extraRefs } }
    const operation = invokeOperation(`${skill.title} (${skill.class})`, body, skill)
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
      responses: INVOKE_RESPONSES,
    },
  }
}

function invokeOperation(summary: string, body: JsonSchema, skill: Skill): Operation {
  return {
    summary,
    description: skill.description,
    operationId: `invoke_${skill.key}`,
    tags: [skill.category],
    requestBody: { required: false, content: json(body) },
    responses: { ...invokeResponses },
  }
}
