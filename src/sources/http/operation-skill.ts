import type { SkillContext, SkillDefinition } from '../../skill/index.js'
import { SkillError } from '../../runtime/index.js'
import { scrubText, secretForms } from '../../audit/index.js'
import { EgressError } from './egress-error.js'
import { egressFetch, type EgressResponse } from './egress-fetch.js'
import { secretsOf, type HttpOperation } from './http-operation.js'

/**
 * An HTTP operation as a skill. It declares the secrets its headers and auth name (and its OAuth
 * connection), so the pipeline answers needs_auth until they are set and scrubs their values from
 * whatever comes back.
 */
export function operationSkill(operation: HttpOperation): SkillDefinition {
  return {
    key: operation.key,
    ...(operation.title && { title: operation.title }),
    description: operation.description,
    class: operation.class,
    category: operation.category,
    tags: operation.tags,
    agents: operation.agents,
    input: operation.input,
    secrets: secretsOf(operation),
    ...(operation.oauth && { oauth: operation.oauth }),
    ...(operation.timeoutMs && { timeoutMs: operation.timeoutMs }),
    run: async (input, ctx) => {
      const sent = new Set<string>()
      const request = buildRequest(operation, input as Record<string, unknown>, secretsSent(ctx, sent))
      // What the service quotes back is scrubbed before it is cut, so no part of a secret survives at the cut.
      const clean = (text: string) => (sent.size > 0 ? scrubText(text, sent) : text)
      const response = await egressFetch({ ...request, signal: ctx.signal, clean }, operation)
      return resultOf(response, clean)
    },
  }
}

/** ctx.secrets, remembering each value it opens (in every form a service may echo) in `sent`. */
function secretsSent(ctx: SkillContext, sent: Set<string>): Pick<SkillContext, 'secrets'> {
  const remember = (text: string) => {
    for (const form of secretForms(text)) sent.add(form)
  }
  return {
    secrets: {
      get: (name) => {
        const value = ctx.secrets.get(name)
        remember(value)
        return value
      },
      conceal: (text) => {
        remember(text)
        ctx.secrets.conceal(text)
      },
    },
  }
}

function buildRequest(
  op: HttpOperation,
  input: Record<string, unknown>,
  ctx: Pick<SkillContext, 'secrets'>,
): { method: string; url: URL; headers: Record<string, string>; body?: string } {
  const path = new Map(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.property]))
  // Each placeholder is replaced as one encoded segment: a value can't add path segments or leave the host.
  const url = new URL(op.url.replace(/\{([^{}]*)\}/g, (_, name: string) => encodeURIComponent(scalar(input[path.get(name) ?? name], name))))
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.8' }
  for (const [name, value] of Object.entries(op.headers))
    headers[name.toLowerCase()] = typeof value === 'string' ? value : (value.prefix ?? '') + ctx.secrets.get(value.secret)
  for (const p of op.parameters) {
    const value = input[p.property]
    if (value === undefined || value === null) continue
    if (p.in === 'query') appendQuery(url.searchParams, p.name, value)
    else if (p.in === 'header') headers[p.name.toLowerCase()] = headerValue(typeof value === 'object' ? JSON.stringify(value) : String(value), p.name)
  }
  // The pipeline hands a connection's access token as the secret named after its provider.
  if (op.oauth) headers.authorization = `Bearer ${ctx.secrets.get(op.oauth.provider)}`
  if (op.auth) {
    const secret = ctx.secrets.get(op.auth.secret)
    if (op.auth.type === 'bearer') headers.authorization = `Bearer ${secret}`
    else if (op.auth.type === 'header') headers[op.auth.name!.toLowerCase()] = secret
    else if (op.auth.type === 'query') url.searchParams.set(op.auth.name!, secret)
    else {
      const basic = Buffer.from(secret).toString('base64')
      ctx.secrets.conceal(basic)
      // user:password: the password alone may be echoed too.
      const password = secret.slice(secret.indexOf(':') + 1)
      if (secret.includes(':')) ctx.secrets.conceal(password)
      headers.authorization = `Basic ${basic}`
    }
  }
  let body: string | undefined
  if (op.body) {
    const value =
      'property' in op.body
        ? input[op.body.property]
        : Object.fromEntries(Object.entries(op.body.fields).flatMap(([field, property]) => (input[property] === undefined ? [] : [[field, input[property]]])))
    if (value !== undefined) {
      body = JSON.stringify(value)
      headers['content-type'] = 'application/json'
    }
  }
  return { method: op.method, url, headers, ...(body !== undefined && { body }) }
}

function appendQuery(params: URLSearchParams, name: string, value: unknown): void {
  // URLSearchParams would turn a lone surrogate into U+FFFD: the service would get another value.
  const append = (key: string, text: string) =>
    params.append(wholeCharacters(key, `query parameter "${name}"`), wholeCharacters(text, `query parameter "${name}"`))
  if (Array.isArray(value)) for (const item of value) append(name, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item))
  else if (typeof value === 'object')
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) append(k, typeof v === 'object' ? JSON.stringify(v) : String(v))
  else append(name, String(value))
}

// A UTF-16 surrogate not paired with its other half: no URL can encode it (encodeURIComponent throws).
const LONE_SURROGATE = /\p{Cs}/u

function wholeCharacters(text: string, what: string): string {
  if (LONE_SURROGATE.test(text)) throw new SkillError('invalid_input', `${what} holds a lone surrogate (half of a UTF-16 pair), which a URL can't carry`)
  return text
}

// What fetch can send as a header value: Latin-1 without control characters (a line break would end the header).
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

function headerValue(text: string, name: string): string {
  if (!HEADER_VALUE.test(text)) {
    throw new SkillError('invalid_input', `header parameter "${name}" can hold only Latin-1 characters without control characters (tab allowed)`)
  }
  return text
}

function scalar(value: unknown, name: string): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new SkillError('invalid_input', `path parameter "${name}" needs a string, number or boolean`)
  }
  // URLs resolve "." and ".." segments (encoded or not): such a value would reach another path.
  if (value === '.' || value === '..' || value === '') throw new SkillError('invalid_input', `path parameter "${name}" can't be "${value}"`)
  return wholeCharacters(String(value), `path parameter "${name}"`)
}

/** A JSON body as its value, an empty one as null, anything else as text. */
function resultOf(response: EgressResponse, clean: (text: string) => string): unknown {
  if (response.body.length === 0) return null
  const text = response.body.toString('utf8')
  if (!/^application\/(?:[\w.+-]*\+)?json\b/i.test(response.contentType)) return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new EgressError(
      `${response.url.origin}${response.url.pathname} answered ${response.contentType} that is not JSON (it starts: ${JSON.stringify(clean(text).slice(0, 200))})`,
    )
  }
}
