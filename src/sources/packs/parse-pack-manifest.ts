import { z } from 'zod'
import { CLASS_CHOICES, KEY_RULE, LOWER_SNAKE_RULE, VALUE_NAME, VALUE_NAME_RULE, isValidKey } from '../../skill/index.js'
import { unknownFields } from '../../text/index.js'

/** skill.json: a subprocess skill. */
export interface PackManifest {
  name: string
  description: string
  schema: Record<string, unknown>
  entry: string
  env_allow: string[]
  /** Secrets from skillplane's store, given to the process as environment variables of the same names. */
  secrets: string[]
  /** An OAuth connection whose access token the process gets in the variable `env` (default `<PROVIDER>_TOKEN`). */
  oauth?: { provider: string; scopes?: string[]; account?: 'person' | 'service'; env: string }
  timeout_seconds: number
  class: 'safe' | 'mutating' | 'dangerous'
  category?: string
  tags: string[]
  output_schema?: Record<string, unknown>
}

const jsonSchema = z.record(z.string(), z.unknown())
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const oauth = z
  .strictObject({
    provider: z.string().regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, `must name a provider of the config's oauth.providers (${LOWER_SNAKE_RULE})`),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be scope tokens (no spaces or quotes)')).optional(),
    account: z.enum(['person', 'service'], 'must be person or service').optional(),
    env: z.string().regex(ENV_NAME, 'must be an environment variable name (letters, digits and _, not starting with a digit)').optional(),
  })
  // GITHUB_TOKEN for github: the name such tools read by convention.
  .transform(({ env, ...rest }) => ({ ...rest, env: env ?? `${rest.provider.toUpperCase()}_TOKEN` }))

const manifest = z
  .strictObject({
    name: z.string().refine(isValidKey, `must be a skill key: ${KEY_RULE}`),
    description: z.string().trim().min(1, 'must not be empty').max(4000),
    schema: jsonSchema.default({ type: 'object' }),
    entry: z.string().min(1),
    env_allow: z.array(z.string().regex(ENV_NAME, 'must be environment variable names (letters, digits and _, not starting with a digit)')).default([]),
    secrets: z
      .array(z.string().regex(VALUE_NAME, `must be secret names (${VALUE_NAME_RULE}; used as environment variable names)`))
      .max(32)
      .default([]),
    oauth: oauth.optional(),
    timeout_seconds: z.number().positive().max(86_400).default(30),
    // Never assumed: a pack that forgets its class must not run as safe.
    class: z.enum(['safe', 'mutating', 'dangerous'], {
      error: (issue) => (issue.input === undefined ? `missing: declare ${CLASS_CHOICES}` : `must be ${CLASS_CHOICES}`),
    }),
    category: z.string().min(1).max(64).optional(),
    tags: z.array(z.string().min(1).max(64)).default([]),
    output_schema: jsonSchema.optional(),
  })
  .refine((m) => !m.oauth || !m.secrets.includes(m.oauth.env), {
    path: ['oauth', 'env'],
    message: 'names a variable a secret of the pack already fills: give oauth another env',
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
  const parsed = manifest.safeParse(data, { error: unknownFields })
  if (!parsed.success) {
    return {
      ok: false,
      message: parsed.error.issues
        .map((i) => (i.code === 'unrecognized_keys' ? i.message : `field "${i.path.join('.') || '(root)'}": ${i.message}`))
        .join('; '),
    }
  }
  return { ok: true, manifest: parsed.data as PackManifest }
}
