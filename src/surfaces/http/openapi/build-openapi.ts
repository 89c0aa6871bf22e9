import type { Skill, Caller, JsonSchema } from '../../../skill/index.js'
import { invokeBody } from '../request-schemas.js'
import { ERROR_TEXT, jsonSchemaOf } from './declare.js'

type Operation = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: unknown) => ({ 'application/json': { schema } })

const INVOKE_ERRORS = [202, 400, 401, 403, 404, 410, 413, 502, 503, 504]
// Every invoke operation answers these: described once, referenced by each skill's operation.
const INVOKE_RESPONSES: Record<string, unknown> = {
  InvokeResult: { description: 'Result', content: json(ref('Success')) },
  ...Object.fromEntries(INVOKE_ERRORS.map((s) => [`Invoke${s}`, { description: ERROR_TEXT[s], content: json(ref('Failure')) }])),
}
const invokeResponses = {
  200: { $ref: '#/components/responses/InvokeResult' },
  ...Object.fromEntries(INVOKE_ERRORS.map((s) => [String(s), { $ref: `#/components/responses/Invoke${s}` }])),
}

/**
 * OpenAPI 3.1 for the HTTP API: the document generated from the routes' declarations (`routes`),
 * and one invoke operation per visible skill whose schemas are components it references.
 */
export function buildOpenApi(options: { routes: Record<string, unknown>; version: string; skills: Skill[]; caller?: Caller }): Record<string, unknown> {
  const { caller, routes } = options
  const inputOf = (skill: Skill) => (caller ? skill.inputSchemaFor({ caller, agent: caller.kind === 'agent' ? caller.agentId : null }) : skill.input.jsonSchema)
  const generated = (routes.components ?? {}) as { schemas?: Record<string, unknown> }
  const schemas: Record<string, unknown> = { ...generated.schemas }
  const paths: Record<string, unknown> = { ...(routes.paths as Record<string, unknown>) }
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
    ...routes,
    openapi: '3.1.0',
    info: { title: 'skillplane', version: options.version, description: 'Invoke, inspect and audit agent skills.' },
    security: [{ apiKey: [] }],
    paths,
    components: {
      ...generated,
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
