import { createPublicKey } from 'node:crypto'
import { z } from 'zod'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { isDefinedSkill, type DefinedSkill } from '../skill/index.js'

// One schema gives both the types a config file is written in (z.input) and the resolved config
// the plane runs with (z.output, defaults filled in): the two can't disagree.

/** How a configured MCP server is reached, once resolved: a subprocess (stdio) or a URL. */
export type ResolvedMcpServer =
  | (McpServerCommon & { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string })
  | (McpServerCommon & { transport: 'http'; url: string; headers: Record<string, string> })

/** A folder of SKILL.md instruction skills and the agents bound to every skill in it. */
interface SkillDirConfig {
  path: string
  agents: string[]
}

interface McpServerCommon {
  name: string
  agents: string[]
  tools: Record<string, { class?: 'safe' | 'mutating' | 'dangerous'; agents: string[] }>
  timeoutMs?: number
  connectTimeoutMs: number
}

const positiveInt = z.number().int().positive()
// setTimeout's ceiling: longer durations fire at once.
const duration = positiveInt.max(2_147_483_647)

// One object shape, so that an error names its field; which transport it is follows from command or url.
const mcpServer = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, 'must be lower_snake (it prefixes the skill keys)')
      .max(32),
    agents: z.array(z.string().min(1)).default([]),
    tools: z
      .record(
        z.string().min(1),
        z.strictObject({ class: z.enum(['safe', 'mutating', 'dangerous']).optional(), agents: z.array(z.string().min(1)).default([]) }),
      )
      .default({}),
    timeoutMs: duration.optional(),
    connectTimeoutMs: duration.default(10_000),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials: put them in headers (they are never shown)')
      .optional(),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either command (a stdio server) or url (a Streamable HTTP server)' })
    }
    const wrong = server.url !== undefined ? (['args', 'env', 'cwd'] as const) : (['headers'] as const)
    for (const field of wrong) {
      if (server[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `does not apply to a ${server.url ? 'url' : 'command'} server` })
    }
  })
  .transform(({ command, args, env, cwd, url, headers, ...common }): ResolvedMcpServer =>
    url !== undefined
      ? { ...common, transport: 'http', url, headers: headers ?? {} }
      : { ...common, transport: 'stdio', command: command!, args: args ?? [], env: env ?? {}, ...(cwd && { cwd }) },
  )

export const modelSettings = z
  .strictObject({
    provider: z.enum(['openai', 'anthropic', 'openai-compatible'], 'unknown provider: use openai, anthropic or openai-compatible'),
    model: z.string().trim().min(1, "the provider's model id is required"),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    baseURL: z.url({ protocol: /^https?$/ }).optional(),
  })
  .superRefine((model, ctx) => {
    if (model.provider === 'openai-compatible' && !model.baseURL)
      ctx.addIssue({ code: 'custom', path: ['baseURL'], message: 'openai-compatible needs the base URL of its API' })
  })

/** The config: what a skillplane.config.ts exports (its input side) and what the plane runs with (its output). */
export const configSchema = z.strictObject({
  skills: z
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each skill has its own schemas
    .array(z.custom<DefinedSkill<any, any>>((value) => isDefinedSkill(value), { message: 'not a skill made with defineSkill()' }))
    .default([]),
  agents: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1).max(100),
        aliases: z.array(z.string().trim().min(1).max(100)).default([]),
        description: z.string().default(''),
        // An AI SDK model object, or provider settings whose errors name their field.
        model: z
          // Typed for the config's author; checked below, so an error names the field it is about.
          .custom<AgentModelConfig | LanguageModelV3>(() => true)
          .optional()
          .transform((value, ctx): ResolvedModel | LanguageModelV3 | undefined => {
            if (value === undefined || isLanguageModel(value)) return value as LanguageModelV3 | undefined
            const parsed = modelSettings.safeParse(value)
            if (parsed.success) return parsed.data
            for (const issue of parsed.error.issues)
              ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] as (string | number)[] })
            return z.NEVER
          }),
        systemPrompt: z.string().optional(),
        maxSteps: z.number().int().min(1).max(100).default(10),
      }),
    )
    .default([]),
  defaults: z.strictObject({ timeoutMs: duration.default(30_000) }).prefault({}),
  audit: z.strictObject({ maxResultBytes: positiveInt.default(65_536) }).prefault({}),
  http: z
    .strictObject({
      maxBodyBytes: positiveInt.default(1_048_576),
      allowedHosts: z.array(z.string().regex(/^[^\s/:]+$|^\[[0-9a-fA-F:.]+\]$/, 'a host name without port or scheme')).default([]),
      // As browsers send them: lower case, no default port.
      allowedOrigins: z
        .array(
          z
            .string()
            .regex(/^https?:\/\/[^\s/]+$/, 'an origin such as https://app.example.com (scheme, host, optional port)')
            .transform((o) => new URL(o).origin),
        )
        .default([]),
    })
    .prefault({}),
  approvals: z
    .strictObject({
      expiresAfterMs: positiveInt.default(24 * 3_600_000),
      waitTimeoutMs: duration.default(180_000),
      webhookUrl: z.url({ protocol: /^https?$/ }).optional(),
    })
    .prefault({}),
  skillDirs: z
    .array(
      z.union([
        z
          .string()
          .min(1)
          .transform((path): SkillDirConfig => ({ path, agents: [] })),
        z.strictObject({ path: z.string().min(1), agents: z.array(z.string().min(1)).default([]) }).transform((dir): SkillDirConfig => dir),
      ]),
    )
    .default([]),
  projectSkills: z.boolean().default(false),
  packDirs: z.array(z.string().min(1)).default([]),
  templateVars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'), z.string()).default({}),
  skillScripts: z
    .strictObject({
      envAllow: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')).default([]),
      timeoutMs: duration.default(60_000),
    })
    .prefault({}),
  mcpServers: z
    .array(mcpServer)
    .default([])
    .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, 'MCP server names must be unique')
    // Server "a" with tool "b_x" and server "a_b" with tool "x" would both be a_b_x.
    .refine(
      (servers) => !servers.some((a) => servers.some((b) => b.name.startsWith(`${a.name}_`))),
      "an MCP server name must not be another one's followed by _ (their skill keys could collide)",
    ),
  sopKeys: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1).max(100),
        publicKey: z.string().refine(isEd25519PublicKey, { message: 'not an Ed25519 public key in PEM form' }),
      }),
    )
    .default([]),
})

function isLanguageModel(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'specificationVersion' in value && typeof (value as { doGenerate?: unknown }).doGenerate === 'function'
}

function isEd25519PublicKey(pem: string): boolean {
  try {
    return createPublicKey(pem).asymmetricKeyType === 'ed25519'
  } catch {
    return false
  }
}

/** A config file's default export, as its author writes it. */
export type SkillplaneConfig = z.input<typeof configSchema>
/** One agent of the config, as written. */
export type AgentConfig = NonNullable<SkillplaneConfig['agents']>[number]
/** An agent's model as provider settings (the alternative is an AI SDK model object). */
export type AgentModelConfig = z.input<typeof modelSettings>
export type ModelProvider = AgentModelConfig['provider']
/** One MCP server of the config, as written: `command` for stdio, or `url`. */
export type McpServerConfig = NonNullable<SkillplaneConfig['mcpServers']>[number]

/** The config the plane runs with: validated, defaults filled in. */
export type ResolvedConfig = z.output<typeof configSchema>
export type ResolvedAgent = ResolvedConfig['agents'][number]
export type ResolvedModel = z.output<typeof modelSettings>
