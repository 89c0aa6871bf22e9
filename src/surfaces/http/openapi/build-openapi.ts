import type { Skill, Caller, JsonSchema } from '../../../skill/index.js'
import { invokeBody } from '../request-schemas.js'
import { ERROR_TEXT, jsonSchemaOf } from './declare.js'

const J = JSON.stringify
const ref = (kind: 'schemas' | 'responses' | 'requestBodies', name: string) => ({ $ref: `#/components/${kind}/${name}` })
const json = (schema: unknown) => ({ 'application/json': { schema } })

// What every invoke answers but a result: one shared response, its description naming each status.
const FAILURE_STATUSES = [400, 401, 403, 404, 410, 413, 502, 503, 504]
const INVOKE_RESPONSES: Record<string, unknown> = {
  InvokeResult: { description: 'Result', content: json(ref('schemas', 'Success')) },
  Invoke202: { description: ERROR_TEXT[202], content: json(ref('schemas', 'Failure')) },
  InvokeFailure: {
    description: `The failure envelope: ${FAILURE_STATUSES.map((s) => `${s} ${ERROR_TEXT[s]!.toLowerCase()}`).join('; ')}`,
    content: json(ref('schemas', 'Failure')),
  },
}

interface Operation {
  // What the bytes were built from: a skill's class can be raised in place, and its components move with what is visible.
  klass: string
  input: string
  output: string | undefined
  bytes: Buffer
}

/** A schema's JSON text, one object per text, and its component's bytes under the name it had last. */
interface SchemaText {
  text: string
  component?: { name: string; bytes: Buffer }
}

export interface OpenApiRequest {
  /** The document generated from the routes' declarations. */
  routes: Record<string, unknown>
  version: string
  /** The skills to document, by key. */
  skills: Skill[]
  caller?: Caller
  /** More top-level fields (a page's bounds). */
  extra?: Record<string, unknown>
}

/**
 * OpenAPI 3.1 for the HTTP API as JSON text: the routes' document, and one invoke operation per
 * skill whose input and output schemas are components. Identical schemas are one component (named
 * after the first skill, by key, that has it), and so is the request body built on each; every
 * skill's operation text and every schema's text is kept, so a build after an edit serialises only
 * what changed and joins the rest.
 */
export class OpenApiBuilder {
  readonly #schemaTexts = new WeakMap<object, SchemaText>()
  // One SchemaText per text, so equal schemas from different objects are one component.
  readonly #interned = new Map<string, WeakRef<SchemaText>>()
  readonly #forget = new FinalizationRegistry<string>((text) => {
    if (this.#interned.get(text)?.deref() === undefined) this.#interned.delete(text)
  })
  readonly #operations = new WeakMap<Skill, Operation>()
  #frame: Frame | undefined

  /** The document's bytes: the kept parts are joined as bytes, so no build encodes megabytes of text again. */
  build(request: OpenApiRequest): Uint8Array<ArrayBuffer> {
    const { caller, skills } = request
    const frame = this.#frameOf(request.routes, request.version)
    const inputs = new Map<SchemaText, Named>()
    const outputs = new Map<SchemaText, Named>()
    const documented: Array<{ skill: Skill; input: Named; output: Named | undefined }> = []
    for (const skill of skills) {
      const input = named(
        inputs,
        this.#textOf(caller ? skill.inputSchemaFor({ caller, agent: caller.kind === 'agent' ? caller.agentId : null }) : skill.input.jsonSchema),
        `${skill.key}_input`,
      )
      const output = skill.output ? named(outputs, this.#textOf(skill.output.jsonSchema), `${skill.key}_output`) : undefined
      documented.push({ skill, input, output })
    }
    const out = new Parts()
    out.text(`{${frame.head}`)
    if (request.extra) for (const [field, value] of Object.entries(request.extra)) out.text(`,${J(field)}:${J(value)}`)
    out.text(`,"paths":{${frame.paths}`)
    // A body or result shared by several skills is a component too; one skill's own is written in place.
    for (const { skill, input, output } of documented) out.member(frame.paths, this.#operation(skill, input, output))
    out.text(`},"components":{${frame.components},"schemas":{${frame.schemas}`)
    for (const named of [inputs, outputs]) for (const schema of named.values()) out.member(frame.schemas, componentOf(schema))
    out.text(`},"requestBodies":{${frame.bodies}`)
    for (const input of inputs.values()) if (input.uses > 1) out.member(frame.bodies, Buffer.from(`${J(input.name)}:${J(requestBody(input.name))}`))
    out.text(`},"responses":{${frame.responses}`)
    for (const output of outputs.values()) if (output.uses > 1) out.member(frame.responses, Buffer.from(`${J(output.name)}:${J(result(output.name))}`))
    out.text('}}}')
    return out.join()
  }

  /** A schema's JSON, kept while the schema object lives (sources build theirs once). */
  #textOf(schema: JsonSchema): SchemaText {
    let kept = this.#schemaTexts.get(schema)
    if (kept === undefined) {
      const text = J(schema)
      kept = this.#interned.get(text)?.deref()
      if (kept === undefined) {
        kept = { text }
        this.#interned.set(text, new WeakRef(kept))
        this.#forget.register(kept, text)
      }
      this.#schemaTexts.set(schema, kept)
    }
    return kept
  }

  /** `"path":{"post":{…}}` for one skill's invoke. */
  #operation(skill: Skill, input: Named, output: Named | undefined): Buffer {
    const inputRef = input.uses > 1 ? `*${input.name}` : input.name
    const outputRef = output && (output.uses > 1 ? `*${output.name}` : output.name)
    const kept = this.#operations.get(skill)
    if (kept && kept.klass === skill.class && kept.input === inputRef && kept.output === outputRef) return kept.bytes
    const operation = {
      summary: `${skill.title} (${skill.class})`,
      description: skill.description,
      operationId: `invoke_${skill.key}`,
      tags: [skill.category],
      requestBody: input.uses > 1 ? ref('requestBodies', input.name) : requestBody(input.name),
      responses: {
        200: !output ? ref('responses', 'InvokeResult') : output.uses > 1 ? ref('responses', output.name) : result(output.name),
        202: ref('responses', 'Invoke202'),
        default: ref('responses', 'InvokeFailure'),
      },
    }
    const bytes = Buffer.from(`${J(`/api/skills/${skill.key}/invoke`)}:${J({ post: operation })}`)
    this.#operations.set(skill, { klass: skill.class, input: inputRef, output: outputRef, bytes })
    return bytes
  }

  /** The routes' part of the document, serialised once: everything but the skills' paths and components. */
  #frameOf(routes: Record<string, unknown>, version: string): Frame {
    if (this.#frame?.routes === routes) return this.#frame
    const {
      paths,
      components = {},
      openapi: _openapi,
      info: _info,
      security: _security,
      ...rest
    } = routes as Record<string, unknown> & { paths: object; components?: Record<string, unknown> }
    const { schemas = {}, responses = {}, requestBodies = {}, securitySchemes: _securitySchemes, ...otherComponents } = components
    // The body's fields other than input are the same for every skill: one schema each skill's body refers to.
    const { input: _input, ...options } = (jsonSchemaOf(invokeBody).properties ?? {}) as Record<string, unknown>
    const head = J({
      ...rest,
      openapi: '3.1.0',
      info: { title: 'skillplane', version, description: 'Invoke, inspect and audit agent skills.' },
      security: [{ apiKey: [] }],
    }).slice(1, -1)
    const components_ = J({
      ...otherComponents,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'A key from `skillplane keys create`' } },
    }).slice(1, -1)
    this.#frame = {
      routes,
      head,
      paths: J(paths).slice(1, -1),
      schemas: J({ ...(schemas as object), InvokeOptions: { type: 'object', properties: options } }).slice(1, -1),
      components: components_,
      bodies: J(requestBodies).slice(1, -1),
      responses: J({ ...(responses as object), ...INVOKE_RESPONSES }).slice(1, -1),
    }
    return this.#frame
  }
}

interface Named {
  name: string
  schema: SchemaText
  /** How many skills of the document have this schema. */
  uses: number
}

/** The component of a schema: named after the first skill to have it. */
function named(names: Map<SchemaText, Named>, schema: SchemaText, name: string): Named {
  const known = names.get(schema)
  if (known !== undefined) {
    known.uses++
    return known
  }
  const added = { name, schema, uses: 1 }
  names.set(schema, added)
  return added
}

/** `"name":{schema}`; $id makes the schema's own "#/$defs/..." references resolve inside it, not against the document. */
function componentOf({ name, schema }: Named): Buffer {
  if (schema.component?.name !== name) {
    const text = schema.text.includes('"$ref":"#') ? `{"$id":${J(`urn:skillplane:schema:${name}`)},${schema.text.slice(1)}` : schema.text
    schema.component = { name, bytes: Buffer.from(`${J(name)}:${text}`) }
  }
  return schema.component.bytes
}

/** The routes' part of the document as JSON text, each piece the members of one object. */
interface Frame {
  routes: Record<string, unknown>
  head: string
  paths: string
  components: string
  schemas: string
  bodies: string
  responses: string
}

/** A document written as byte parts, joined once. */
class Parts {
  readonly #parts: Buffer[] = []
  /** Members of the object being written so far: the next one needs a comma. */
  #members = 0

  text(text: string): void {
    this.#parts.push(Buffer.from(text))
    this.#members = 0
  }

  /** One more member of the object being written, after its `head` members (maybe none). */
  member(head: string, ...bytes: Buffer[]): void {
    if (this.#members++ > 0 || head.length > 0) this.#parts.push(COMMA)
    this.#parts.push(...bytes)
  }

  join(): Uint8Array<ArrayBuffer> {
    return Buffer.concat(this.#parts)
  }
}
const COMMA = Buffer.from(',')

/** A skill's invoke body: the shared options and its input. */
const requestBody = (inputName: string) => ({
  content: json({ ...ref('schemas', 'InvokeOptions'), properties: { input: ref('schemas', inputName) }, unevaluatedProperties: false }),
})
/** A result whose data has the skill's output schema. */
const result = (outputName: string) => ({
  description: 'Result',
  content: json({ allOf: [ref('schemas', 'Success'), { properties: { data: ref('schemas', outputName) } }] }),
})
