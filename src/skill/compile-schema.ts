import { z } from 'zod'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import formats from 'ajv-formats'
import type { JsonSchema, SchemaLike } from './skill-types.js'
import { DefinitionError } from './definition-error.js'

export interface SchemaIssue {
  /** JSON Pointer into the value, "" for the root. */
  path: string
  /** The rule that failed (zod issue code or JSON Schema keyword). */
  rule: string
  message: string
}

export type Validation = { ok: true; value: unknown } | { ok: false; issues: SchemaIssue[] }

export interface CompiledSchema {
  jsonSchema: JsonSchema
  validate(value: unknown): Validation
}

// ajv-formats is CommonJS with exports.default: under NodeNext the function is formats.default.
const addFormats = formats.default

// strict: false because imported schemas (MCP, packs) carry vendor keywords we must keep verbatim.
const options = { allErrors: true, strict: false, useDefaults: true, coerceTypes: false }
type Draft = 'draft-07' | '2019-09' | '2020-12'
const instances = new Map<Draft, Ajv | Ajv2019 | Ajv2020>()

/** The validator for the draft a schema declares (2020-12 when it declares none). */
function ajvFor(draft: Draft): Ajv | Ajv2019 | Ajv2020 {
  let ajv = instances.get(draft)
  if (!ajv) {
    ajv = draft === 'draft-07' ? new Ajv(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv2020(options)
    addFormats(ajv as Ajv)
    instances.set(draft, ajv)
  }
  return ajv
}

function draftOf(uri: unknown): Draft {
  if (typeof uri !== 'string') return '2020-12'
  if (/draft-0[4-7]/.test(uri)) return 'draft-07'
  if (uri.includes('2019-09')) return '2019-09'
  return '2020-12'
}

// Sources list the same schemas again and again (reloads, reconnecting MCP servers): compile each
// distinct schema once, which also keeps Ajv's own cache from growing with every listing.
const compiled = new Map<string, ValidateFunction>()

export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value
}

/** Compile a zod or JSON Schema into a JSON Schema document plus a validator. */
export function compileSchema(schema: SchemaLike, io: 'input' | 'output', where: string): CompiledSchema {
  if (isZodSchema(schema)) return compileZod(schema, io, where)
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new DefinitionError(`${where}: schema must be a zod schema or a JSON Schema object`)
  }
  return compileJsonSchema(schema, where)
}

function compileZod(schema: z.ZodType, io: 'input' | 'output', where: string): CompiledSchema {
  let jsonSchema: JsonSchema
  try {
    jsonSchema = z.toJSONSchema(schema, { io }) as JsonSchema
  } catch (error) {
    throw new DefinitionError(`${where}: the zod schema can't be expressed as JSON Schema: ${(error as Error).message}`)
  }
  delete jsonSchema.$schema
  return {
    jsonSchema,
    validate(value) {
      const result = schema.safeParse(value)
      if (result.success) return { ok: true, value: result.data }
      return {
        ok: false,
        issues: result.error.issues.map((issue) => ({
          path: toPointer(issue.path),
          rule: issue.code,
          message: issue.message,
        })),
      }
    },
  }
}

function compileJsonSchema(schema: JsonSchema, where: string): CompiledSchema {
  // Compile a copy without $schema: the draft picks the validator, and unknown meta-schema URIs are refused.
  const { $schema, ...body } = schema
  const draft = draftOf($schema)
  const cacheKey = `${draft} ${JSON.stringify(body)}`
  let check = compiled.get(cacheKey)
  if (!check) {
    const ajv = ajvFor(draft)
    try {
      // Ajv keeps schemas by $id (without a trailing #): a changed schema under the same id replaces the old one.
      if (typeof body.$id === 'string') ajv.removeSchema(body.$id.replace(/#$/, ''))
      check = ajv.compile(body)
    } catch (error) {
      throw new DefinitionError(`${where}: invalid JSON Schema: ${(error as Error).message}`)
    }
    compiled.set(cacheKey, check)
  }
  const validator = check
  return {
    jsonSchema: schema,
    validate(value) {
      // useDefaults writes into the value: validate a copy so the caller's object is untouched.
      const copy = value === undefined ? undefined : structuredClone(value)
      if (validator(copy)) return { ok: true, value: copy }
      return { ok: false, issues: (validator.errors ?? []).map(fromAjv) }
    },
  }
}

function fromAjv(error: ErrorObject): SchemaIssue {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined
  const extra = error.keyword === 'additionalProperties' ? (error.params as { additionalProperty?: string }).additionalProperty : undefined
  const path = missing !== undefined || extra !== undefined ? `${error.instancePath}/${escapePointer(missing ?? extra!)}` : error.instancePath
  return { path, rule: error.keyword, message: error.message ?? error.keyword }
}

function toPointer(path: ReadonlyArray<PropertyKey>): string {
  return path.map((segment) => '/' + escapePointer(String(segment))).join('')
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** One line naming each failing path and rule, for envelopes and CLI output. */
export function describeIssues(what: string, issues: SchemaIssue[]): string {
  const parts = issues.slice(0, 5).map((i) => `${i.path || '/'}: ${i.message} (${i.rule})`)
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : ''
  return `${what} at ${parts.join('; ')}${more}`
}
