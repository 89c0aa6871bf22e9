import { z } from 'zod'
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
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
const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false })
addFormats(ajv)

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
  // Compile a copy without $schema: Ajv2020 reads draft-07 style schemas too, and refuses unknown meta-schemas.
  const { $schema: _ignored, ...body } = schema
  let check: ReturnType<typeof ajv.compile>
  try {
    // Ajv keeps schemas by $id: a reloaded pack or re-listed MCP tool replaces its earlier self.
    if (typeof body.$id === 'string') ajv.removeSchema(body.$id)
    check = ajv.compile(body)
  } catch (error) {
    throw new DefinitionError(`${where}: invalid JSON Schema: ${(error as Error).message}`)
  }
  return {
    jsonSchema: schema,
    validate(value) {
      // useDefaults writes into the value: validate a copy so the caller's object is untouched.
      const copy = value === undefined ? undefined : structuredClone(value)
      if (check(copy)) return { ok: true, value: copy }
      return { ok: false, issues: (check.errors ?? []).map(fromAjv) }
    },
  }
}

function fromAjv(error: ErrorObject): SchemaIssue {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined
  const extra =
    error.keyword === 'additionalProperties'
      ? (error.params as { additionalProperty?: string }).additionalProperty
      : undefined
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
