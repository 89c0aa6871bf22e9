import type { ResolvedHttpSkill, ResolvedOpenApiSource } from '../../config/index.js'
import type { Registry } from '../../registry/index.js'
import type { SkillLogger } from '../../skill/index.js'
import { configOperation } from './config-operation.js'
import type { HttpOperation } from './http-operation.js'
import { loadOpenApi } from './load-openapi.js'
import { openApiOperations } from './openapi-operations.js'
import { operationSkill } from './operation-skill.js'
import type { SkillSource, SourceReport } from '../skill-source/index.js'

interface OpenApiReport {
  name: string
  spec: string
  /** Where its calls go; null when the document could not be read or names none. */
  baseUrl: string | null
  /** `failed`: the document could not be read; the reason is the first problem. */
  state: 'loaded' | 'failed'
  skills: string[]
  /** Operations that could not become skills, config entries that match nothing, or why loading failed. */
  problems: string[]
}

interface HttpSkillsReport {
  skills: string[]
  problems: string[]
}

export interface HttpSourceOptions {
  skills: readonly ResolvedHttpSkill[]
  openapi: readonly ResolvedOpenApiSource[]
  registry: Registry
  /** A name another kind of source holds (instruction skills), or undefined. */
  taken(name: string): string | undefined
  logger: SkillLogger
}

/**
 * The config's HTTP skills and the operations of its OpenAPI documents, registered as skills.
 * A document that fails to load is reported on its source; it never stops the others or the start.
 */
export class HttpSource implements SkillSource {
  readonly kind = 'http'
  readonly #o: HttpSourceOptions
  #keys: string[] = []
  #http: HttpSkillsReport = { skills: [], problems: [] }
  #openapi: OpenApiReport[] = []

  constructor(options: HttpSourceOptions) {
    this.#o = options
  }

  start(): Promise<void> {
    return this.reload()
  }

  /** (Re)read every document and replace the skills this source registered. */
  async reload(): Promise<void> {
    const loaded = await Promise.all(
      this.#o.openapi.map(async (source) => {
        try {
          const { document, url } = await loadOpenApi(source.spec)
          return { source, ...openApiOperations(source, document, url), failed: false }
        } catch (error) {
          return {
            source,
            operations: [],
            baseUrl: null,
            problems: [`the document ${source.spec} could not be read: ${(error as Error).message}`],
            failed: true,
          }
        }
      }),
    )
    const { registry } = this.#o
    for (const key of this.#keys) registry.unregister(key)
    this.#keys = []
    const http = this.#registerAll(
      this.#o.skills.map((s) => ({ operation: configOperation(s), origin: `config httpSkills "${s.key}"` })),
      [],
    )
    this.#http = http
    this.#openapi = loaded.map(({ source, operations, baseUrl, problems, failed }) => {
      const registered = this.#registerAll(
        operations.map((operation) => ({
          operation,
          origin: `OpenAPI source "${source.name}", ${operation.method} ${new URL(operation.url.replace(/\{[^{}]*\}/g, 'x')).pathname}`,
        })),
        problems,
      )
      return { name: source.name, spec: source.spec, baseUrl, state: failed ? 'failed' : 'loaded', ...registered }
    })
    for (const report of this.#openapi) for (const problem of report.problems) this.#o.logger.error({ source: report.name }, `OpenAPI import: ${problem}`)
    for (const problem of http.problems) this.#o.logger.error({}, `HTTP skills: ${problem}`)
  }

  /** The config's HTTP skills as one entry (`httpSkills`, when any are configured), then one per OpenAPI document. */
  report(): SourceReport {
    const declared = this.#o.skills.length > 0 || this.#http.problems.length > 0
    return {
      skills: [...this.#http.skills, ...this.#openapi.flatMap((s) => s.skills)].sort(),
      entries: [
        ...(declared ? [{ name: 'httpSkills', state: 'loaded', reason: null, ...this.#http, details: {} }] : []),
        ...this.#openapi.map(({ name, state, skills, problems, spec, baseUrl }) => ({
          name,
          state,
          reason: null,
          skills,
          problems,
          details: { spec: shownUrl(spec), baseUrl: baseUrl && shownUrl(baseUrl) },
        })),
      ],
      findings: [],
    }
  }

  async close(): Promise<void> {}

  #registerAll(entries: { operation: HttpOperation; origin: string }[], problems: string[]): { skills: string[]; problems: string[] } {
    const { registry, taken } = this.#o
    const skills: string[] = []
    const found = [...problems]
    for (const { operation, origin } of entries) {
      const holder = registry.get(operation.key)
      const other = holder ? `${holder.source} skill "${holder.key}" (${holder.origin})` : taken(operation.key)
      if (other) {
        found.push(`${origin}: its key "${operation.key}" is taken by ${other}; skipped`)
        continue
      }
      try {
        registry.register(operationSkill(operation), { source: 'http', origin })
        skills.push(operation.key)
      } catch (error) {
        found.push(`${origin}: ${(error as Error).message}; skipped`)
      }
    }
    this.#keys.push(...skills)
    return { skills: skills.sort(), problems: found }
  }
}

/** A URL as a report shows it: no user, password or query, which may carry a token; a file path as it is. */
function shownUrl(text: string): string {
  if (!/^https?:\/\//i.test(text)) return text
  try {
    const url = new URL(text)
    if (!url.username && !url.password && !url.search) return text
    url.username = ''
    url.password = ''
    const query = url.search ? '?…' : ''
    url.search = ''
    return url.toString() + query
  } catch {
    return text
  }
}
