import { z } from 'zod'
import { VALUE_NAME, VALUE_NAME_RULE, isValidKey } from '../../skill/index.js'

/** skill.json: a subprocess skill. */
export interface PackManifest {
  name: string
  description: string
  schema: Record<string, unknown>
  entry: string
  env_allow: string[]
  /** Secrets from skillplane's store, given to the process as environment variables of the same names. */
  secrets: string[]
  timeout_seconds: number
  class?: 'safe' | 'mutating' | 'dangerous'
  category?: string
  tags: string[]
  output_schema?: Record<string, unknown>
}

const jsonSchema = z.record(z.string(), z.unknown())

const manifest = z.strictObject({
  name: z.string().refine(isValidKey, 'must be lower_snake (a-z, 0-9, single underscores, starting with a letter)'),
  description: z.string().trim().min(1, 'must not be empty').max(4000),
  schema: jsonSchema.default({ type: 'object' }),
  entry: z.string().min(1),
  env_allow: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be environment variable names')).default([]),
  secrets: z
    .array(z.string().regex(VALUE_NAME, `must be secret names (${VALUE_NAME_RULE}; used as environment variable names)`))
    .max(32)
    .default([]),
  timeout_seconds: z.number().positive().max(86_400).default(30),
  class: z.enum(['safe', 'mutating', 'dangerous']).optional(),
  category: z.string().min(1).max(64).optional(),
  tags: z.array(z.string().min(1).max(64)).default([]),
  output_schema: jsonSchema.optional(),
})

export type ParsedManifest = { ok: true; manifest: PackManifest } | { ok: false; message: string }

/** Parse and check skill.json; the message names the field that is wrong. */
export function parsePackManifest(text: string): ParsedManifest {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${(error as Error).message}` }
  }
  const parsed = manifest.safeParse(data)
  if (!parsed.success) {
    return {
      ok: false,
      message: parsed.error.issues
        .map((i) =>
          i.code === 'unrecognized_keys' ? `unknown field ${i.keys.map((k) => `"${k}"`).join(', ')}` : `field "${i.path.join('.') || '(root)'}": ${i.message}`,
        )
        .join('; '),
    }
  }
  return { ok: true, manifest: parsed.data as PackManifest }
}
