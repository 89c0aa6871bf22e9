import { readFile, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { $RefParser } from '@apidevtools/json-schema-ref-parser'
import { parse } from 'yaml'
import { hostOf } from './allow-hosts.js'
import { egressFetch } from './egress-fetch.js'

/** The largest OpenAPI document read. */
const MAX_SPEC_BYTES = 16 * 1024 * 1024
const SPEC_TIMEOUT_MS = 15_000

export interface OpenApiDocument {
  openapi: string
  servers?: { url: string; variables?: Record<string, { default: string }> }[]
  paths: Record<string, Record<string, unknown>>
  security?: unknown[]
  components?: { securitySchemes?: Record<string, unknown> }
}

/**
 * Read an OpenAPI 3.0 or 3.1 document (JSON or YAML) from a file or an http(s) URL, with its
 * internal references (`#/components/...`) resolved. External references are not followed: a
 * document's references can't make skillplane read other files or hosts. Throws with the reason.
 */
export async function loadOpenApi(spec: string): Promise<{ document: OpenApiDocument; url: URL | null }> {
  let text: string
  let url: URL | null = null
  if (/^https?:\/\//i.test(spec)) {
    url = new URL(spec)
    const response = await egressFetch(
      { method: 'GET', url, headers: { accept: 'application/json, application/yaml, text/yaml, */*' }, signal: AbortSignal.timeout(SPEC_TIMEOUT_MS) },
      { allowHosts: [hostOf(spec)], maxResponseBytes: MAX_SPEC_BYTES },
    ).catch((error: Error) => {
      throw new Error(error.name === 'TimeoutError' ? `fetching it took longer than ${SPEC_TIMEOUT_MS / 1000} s` : error.message)
    })
    text = response.body.toString('utf8')
  } else {
    const file = resolve(spec)
    const size = (await stat(file)).size
    if (size > MAX_SPEC_BYTES) throw new Error(`it is larger than ${MAX_SPEC_BYTES} bytes`)
    text = await readFile(file, 'utf8')
  }
  let parsed: unknown
  try {
    parsed = parse(text, { maxAliasCount: 100 })
  } catch (error) {
    throw new Error(`it is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  const doc = parsed as Partial<OpenApiDocument> | null
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('it is not an OpenAPI document (not an object)')
  if (typeof doc.openapi !== 'string' || !/^3\.[01]\.\d+/.test(doc.openapi)) {
    const swagger = (doc as { swagger?: unknown }).swagger
    throw new Error(swagger ? `it is Swagger ${String(swagger)}; only OpenAPI 3.0 and 3.1 are read` : 'it has no "openapi": "3.0.x" or "3.1.x" field')
  }
  if (doc.paths === undefined) doc.paths = {}
  if (typeof doc.paths !== 'object' || doc.paths === null) throw new Error('its "paths" is not an object')
  try {
    const document = await $RefParser.dereference(doc as object, {
      resolve: { external: false },
      dereference: { circular: 'ignore' },
      mutateInputSchema: false,
      timeoutMs: SPEC_TIMEOUT_MS,
    })
    return { document: document as OpenApiDocument, url }
  } catch (error) {
    throw new Error(`a reference could not be resolved: ${(error as Error).message}`)
  }
}
