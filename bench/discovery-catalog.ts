import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createSkillplane, defineSkill, type DefinedSkill, type JsonSchema, type Skillplane } from '../src/index.js'
import type { CatalogTool, LabelledQuery } from './discovery-data.js'
import { BENCH_CALLER } from './support.js'

// What the discovery benches share: data set tools as skills, a plane over them, discover_skills through the pipeline.

/** The longest query discover_skills takes: 4 MetaTool queries and one LiveMCPBench task are longer. */
export const MAX_QUERY = 1_000

/** A seeded generator (mulberry32): the history split and the synthetic catalog are the same on every run. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** A tool name as a skill key the way MCP imports fold names (camelCase split, the rest to `_`), a letter first, repeats numbered. */
function skillKeys(names: readonly string[]): string[] {
  const taken = new Set<string>()
  return names.map((name) => {
    let base = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
    if (!/^[a-z]/.test(base)) base = `t_${base}`
    base = base.slice(0, 56).replace(/_+$/, '')
    let key = base
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`
    taken.add(key)
    return key
  })
}

/** Draft-04's boolean exclusiveMinimum/Maximum (numbers since draft-06) dropped: one PDF Reader tool has them, and Ajv refuses them. */
function withoutDraft4Bounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDraft4Bounds)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, v]) => !(typeof v === 'boolean' && (name === 'exclusiveMinimum' || name === 'exclusiveMaximum')))
      .map(([name, v]) => [name, withoutDraft4Bounds(v)]),
  )
}

/** The tool's arguments as the skill's JSON Schema input, so that their names and descriptions are indexed. */
function inputOf(schema: JsonSchema): JsonSchema {
  return withoutDraft4Bounds({
    ...(schema.$schema !== undefined && { $schema: schema.$schema }),
    type: 'object',
    properties: schema.properties ?? {},
  }) as JsonSchema
}

function toSkill(tool: CatalogTool, key: string): DefinedSkill<JsonSchema> {
  return defineSkill({
    key,
    // 19 LiveMCPBench tools come without a description; skillplane requires one.
    description: tool.description.trim() || tool.label,
    class: 'safe',
    ...(tool.category !== undefined && { category: tool.category }),
    ...(tool.server !== undefined && { tags: [tool.server] }),
    ...(tool.inputSchema !== undefined && { input: inputOf(tool.inputSchema) }),
    run: () => ({ done: true }),
  })
}

export interface CatalogSkills {
  skills: DefinedSkill<JsonSchema>[]
  /** Skill key → the label the data set scores. */
  labels: Map<string, string>
  /** Label → the keys of its skills (a LiveMCPBench name on several servers has several). */
  keys: Map<string, string[]>
}

export interface BenchCatalog extends CatalogSkills {
  plane: Skillplane
  close(): Promise<void>
}

export function catalogSkills(tools: readonly CatalogTool[]): CatalogSkills {
  const keys = skillKeys(tools.map((t) => t.label))
  const byLabel = new Map<string, string[]>()
  keys.forEach((key, i) => byLabel.set(tools[i]!.label, [...(byLabel.get(tools[i]!.label) ?? []), key]))
  return {
    skills: tools.map((tool, i) => toSkill(tool, keys[i]!)),
    labels: new Map(keys.map((key, i) => [key, tools[i]!.label])),
    keys: byLabel,
  }
}

/**
 * A plane whose registry holds the skills, synced to its catalog as `serve` does: on a fresh
 * SQLite file, removed at close, or on `dataDir` (kept: its owner removes it).
 */
export async function openCatalog(catalog: CatalogSkills, dataDir?: string): Promise<BenchCatalog> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'skillplane-bench-discovery-'))
  const plane = await createSkillplane({ config: { skills: catalog.skills }, dataDir: dir, logger: pino({ level: 'silent' }), sync: true })
  return {
    ...catalog,
    plane,
    async close() {
      await plane.close()
      if (dataDir === undefined) rmSync(dir, { recursive: true, force: true })
    },
  }
}

interface DiscoverResult {
  results: Array<{ key: string; score: number; why: string[] }>
}

/** `discover_skills` through the pipeline, as an admin: the keys it returned. */
export async function discover(plane: Skillplane, query: string, limit: number, conversationId?: string): Promise<string[]> {
  const envelope = await plane.invoke('discover_skills', { query, limit }, { caller: BENCH_CALLER, conversationId })
  if (!envelope.ok) throw new Error(`discover_skills failed for ${JSON.stringify(query)}: ${envelope.error.code}: ${envelope.error.message}`)
  return (envelope.data as DiscoverResult).results.map((r) => r.key)
}

/** Every tool of both catalogs again and again, words shuffled and keys numbered, to 10,000 skills. */
export function syntheticCatalog(tools: readonly CatalogTool[], size: number, random: () => number): CatalogTool[] {
  return Array.from({ length: size }, (_, i) => {
    const tool = tools[i % tools.length]!
    const copy = Math.floor(i / tools.length)
    if (copy === 0) return tool
    const words = shuffled(tool.description.split(/\s+/), random).join(' ')
    return { ...tool, label: `${tool.label}_${copy}`, description: words }
  })
}

/** A query as an agent would ask it: its first MAX_QUERY characters, to both rankers alike. */
export function asked(queries: readonly LabelledQuery[]): LabelledQuery[] {
  return queries.map((q) => ({ ...q, query: q.query.slice(0, MAX_QUERY) }))
}
