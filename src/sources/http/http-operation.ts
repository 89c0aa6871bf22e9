import type { JsonSchema, SkillClass, SkillOAuth } from '../../skill/index.js'

/** A header value as written, or a secret opened for the caller at each call. */
export type HeaderValue = string | { secret: string; prefix?: string }

/** How a source authenticates: the secret's value as a bearer token, a header, a query parameter or Basic user:password. */
export interface HttpAuth {
  type: 'bearer' | 'header' | 'query' | 'basic'
  secret: string
  name?: string
}

/** Where an input property goes in the request. */
export interface InputParameter {
  property: string
  in: 'path' | 'query' | 'header'
  /** The parameter's name in the request (a header's name, a query key). */
  name: string
}

/**
 * An HTTP call as a skill, whether a config entry or an OpenAPI operation made it: the request
 * is built from the input at each call, under the source's egress limits.
 */
export interface HttpOperation {
  key: string
  title?: string
  description: string
  class: SkillClass
  category: string
  tags: string[]
  agents: string[]
  input: JsonSchema
  method: string
  /** Absolute URL whose path may hold `{name}` placeholders filled from path parameters. */
  url: string
  parameters: InputParameter[]
  headers: Record<string, HeaderValue>
  /** JSON body: the value of one input property, the named fields (body field → input property), or none. */
  body: { property: string } | { fields: Record<string, string> } | null
  auth?: HttpAuth
  /** The OAuth connection whose access token goes in `Authorization: Bearer`. */
  oauth?: SkillOAuth
  allowHosts: string[]
  maxResponseBytes: number
  timeoutMs?: number
}

/** The class an HTTP method implies: reads are safe, deletes dangerous, anything else mutating. */
export function classOfMethod(method: string): SkillClass {
  if (method === 'GET' || method === 'HEAD') return 'safe'
  if (method === 'DELETE') return 'dangerous'
  return 'mutating'
}

/** The secrets an operation's headers and auth name, each once. */
export function secretsOf(operation: Pick<HttpOperation, 'headers' | 'auth'>): string[] {
  const names = Object.values(operation.headers).flatMap((v) => (typeof v === 'string' ? [] : [v.secret]))
  if (operation.auth) names.push(operation.auth.secret)
  return [...new Set(names)]
}
