import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'

const DATA = fileURLToPath(new URL('./data/', import.meta.url))

/** One tool of a catalog, as the data set describes it. */
export interface CatalogTool {
  /** What labels name: the MetaTool tool name, the LiveMCPBench tool name (shared across servers), an APIBench catalog line's `api_name`, numbered when repeated. */
  label: string
  /** APIBench only: the tool's name as text (`api_name`), which repeats where labels cannot. */
  name?: string
  description: string
  /** LiveMCPBench only: the tool's JSON Schema input and its server. */
  inputSchema?: Record<string, unknown>
  server?: string
  /** LiveMCPBench: the server's category; APIBench: the API's `domain`. */
  category?: string
}

export interface LabelledQuery {
  query: string
  /** Labels of every relevant tool (binary relevance). */
  relevant: string[]
}

export interface RetrievalSet {
  name: string
  tools: CatalogTool[]
  queries: LabelledQuery[]
}

export interface DiscoveryData {
  metatoolSingle: RetrievalSet
  metatoolMulti: RetrievalSet
  liveMcpBench: RetrievalSet
  huggingFace: RetrievalSet
  tensorflowHub: RetrievalSet
  torchHub: RetrievalSet
  /** Torch Hub's train queries over the same catalog: usage history, never scored. */
  torchHubTrain: LabelledQuery[]
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(DATA + path, 'utf8'))
}

/** RFC 4180: fields separated by commas, rows by LF or CRLF; a quoted field may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let i = 0
  const endField = () => {
    row.push(field)
    field = ''
  }
  while (i < text.length) {
    const c = text[i]!
    if (c === '"' && field === '') {
      // A quoted field runs to the next quote that is not doubled.
      i++
      for (;;) {
        const close = text.indexOf('"', i)
        if (close < 0) throw new Error(`CSV: a quoted field opened before offset ${i} is never closed`)
        field += text.slice(i, close)
        if (text[close + 1] === '"') {
          field += '"'
          i = close + 2
        } else {
          i = close + 1
          break
        }
      }
      const next = text[i]
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        throw new Error(`CSV: unexpected ${JSON.stringify(next)} after a closing quote at offset ${i}`)
      }
    } else if (c === ',') {
      endField()
      i++
    } else if (c === '\n' || c === '\r') {
      endField()
      rows.push(row)
      row = []
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1
    } else {
      field += c
      i++
    }
  }
  if (field !== '' || row.length > 0) {
    endField()
    rows.push(row)
  }
  return rows
}

function metatoolCatalog(): CatalogTool[] {
  const descriptions = readJson('metatool/plugin_des.json') as Record<string, string>
  return Object.entries(descriptions).map(([label, description]) => ({ label, description }))
}

function assertKnown(labels: string[], tools: CatalogTool[], where: string): void {
  const known = new Set(tools.map((t) => t.label))
  for (const label of labels) if (!known.has(label)) throw new Error(`${where}: label ${JSON.stringify(label)} is not a tool of the catalog`)
}

/** MetaTool single-tool: distinct queries in file order; a query listed under two tools has both as relevant. */
export function loadMetatoolSingle(): RetrievalSet {
  const tools = metatoolCatalog()
  const [header, ...rows] = parseCsv(readFileSync(DATA + 'metatool/all_clean_data.csv', 'utf8'))
  if (header?.join(',') !== 'Query,Tool') throw new Error(`all_clean_data.csv: header is ${JSON.stringify(header)}, expected Query,Tool`)
  const byQuery = new Map<string, Set<string>>()
  for (const [n, row] of rows.entries()) {
    if (row.length !== 2) throw new Error(`all_clean_data.csv: row ${n + 2} has ${row.length} fields, expected 2`)
    const [query, label] = row as [string, string]
    assertKnown([label], tools, `all_clean_data.csv row ${n + 2}`)
    let labels = byQuery.get(query)
    if (!labels) byQuery.set(query, (labels = new Set()))
    labels.add(label)
  }
  return { name: 'MetaTool single-tool', tools, queries: [...byQuery].map(([query, labels]) => ({ query, relevant: [...labels] })) }
}

/** MetaTool two-tool: the 497 golden queries, each with its two tools relevant. */
export function loadMetatoolMulti(): RetrievalSet {
  const tools = metatoolCatalog()
  const golden = readJson('metatool/multi_tool_query_golden.json') as Array<{ query: string; tool: string[] }>
  const queries = golden.map(({ query, tool }, n) => {
    assertKnown(tool, tools, `multi_tool_query_golden.json entry ${n}`)
    return { query, relevant: [...new Set(tool)] }
  })
  return { name: 'MetaTool two-tool', tools, queries }
}

interface LiveServer {
  name: string
  category: string
  tools: Record<string, { tools: Array<{ name: string; description: string | null; inputSchema?: Record<string, unknown> }> }>
}

interface LiveTask {
  Question: string
  'Annotator Metadata': { Tools: string }
}

/**
 * LiveMCPBench: 527 tools of 70 servers; a task's labels are its annotator's numbered tool list,
 * `N. ` stripped and matched to a tool name exactly. Names repeat across servers, so labels are
 * names; mentions that match no tool are dropped, and tasks left with none are skipped.
 */
export function loadLiveMcpBench(): RetrievalSet {
  const servers = readJson('livemcpbench/tools.json') as LiveServer[]
  const tools: CatalogTool[] = servers.flatMap((server) =>
    Object.values(server.tools).flatMap((entry) =>
      entry.tools.map((tool) => ({
        label: tool.name,
        description: tool.description ?? '',
        inputSchema: tool.inputSchema,
        server: server.name,
        category: server.category,
      })),
    ),
  )
  const names = new Set(tools.map((t) => t.label))
  const tasks = readJson('livemcpbench/all_annotations.json') as LiveTask[]
  const queries: LabelledQuery[] = []
  for (const task of tasks) {
    const mentions = task['Annotator Metadata'].Tools.split('\n')
      .map((line) => line.replace(/^\s*\d+\.\s*/, ''))
      .filter((name) => name !== '')
    const relevant = [...new Set(mentions.filter((name) => names.has(name)))]
    if (relevant.length > 0) queries.push({ query: task.Question, relevant })
  }
  return { name: 'LiveMCPBench', tools, queries }
}

function readJsonLines(path: string): unknown[] {
  return readFileSync(DATA + path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, n) => {
      try {
        return JSON.parse(line) as unknown
      } catch (error) {
        throw new Error(`${path} line ${n + 1}: ${(error as Error).message}`)
      }
    })
}

/** An APIBench catalog line (the fields the bench reads; the rest only take part in matching labels). */
interface ApiDoc {
  domain: string
  api_name: string
  functionality: string
  description: string
}

interface ApiRecord {
  code: string
  api_data: unknown
}

/** A JSON value with its object keys sorted, so two deep-equal objects print the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )
}

/**
 * The request of an eval record: after `###Instruction: ` up to `\n###Output`. 10 records write
 * `### Instruction:` or `### Output`, and 5 have no output, their request running to the end.
 */
export function evalInstruction(code: string): string | undefined {
  return /^\s*###\s?Instruction:\s*([\s\S]*?)\s*(?:\n###\s?Output|$)/.exec(code)?.[1]?.trim() || undefined
}

/** The request of a train record, written as a Python dict: `{'Instruction': text, 'Output': …`, the text quoted in 6. */
export function trainInstruction(code: string): string | undefined {
  const text = /^\{'Instruction':\s*([\s\S]*?),\s*'Output':/.exec(code)?.[1]?.trim()
  return text?.replace(/^(["'])([\s\S]*)\1$/, '$2').trim() || undefined
}

/** What the README says resolves: a change in the data fails here rather than quietly moving the figures. */
const APIBENCH_COUNTS = {
  huggingface: { catalog: 936, records: 911, resolved: 834, twoDocs: 0 },
  tensorflowhub: { catalog: 696, records: 688, resolved: 688, twoDocs: 4 },
  torchhub: { catalog: 94, records: 186, resolved: 186, twoDocs: 0 },
  torchhubTrain: { catalog: 94, records: 837, resolved: 837, twoDocs: 0 },
}

function expectCount(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`Gorilla APIBench ${what}: ${actual}, bench/data/README.md says ${expected}`)
}

/**
 * An APIBench catalog as tools: key from `api_name` (numbered when repeated, as 641 TensorFlow
 * Hub lines share `model_id`), description = functionality + description, category = domain.
 */
function apiCatalog(file: string): { tools: CatalogTool[]; docs: unknown[] } {
  const docs = readJsonLines(`gorilla-apibench/api/${file}`)
  const seen = new Map<string, number>()
  const tools = docs.map((doc) => {
    const { api_name: name, functionality, description, domain } = doc as ApiDoc
    const n = (seen.get(name) ?? 0) + 1
    seen.set(name, n)
    return { label: n === 1 ? name : `${name} (${n})`, name, description: `${functionality}. ${description}`, category: domain }
  })
  return { tools, docs }
}

/** Labels are the catalog lines whose whole object deep-equals the record's `api_data` (two identical lines: both relevant); records none equals are skipped. */
function apiQueries(
  catalog: { tools: CatalogTool[]; docs: unknown[] },
  file: string,
  instruction: (code: string) => string | undefined,
  counts: (typeof APIBENCH_COUNTS)[keyof typeof APIBENCH_COUNTS],
): LabelledQuery[] {
  const lines = new Map<string, number[]>()
  catalog.docs.forEach((doc, i) => lines.set(canonical(doc), [...(lines.get(canonical(doc)) ?? []), i]))
  const records = readJsonLines(`gorilla-apibench/apibench/${file}`) as ApiRecord[]
  const queries: LabelledQuery[] = []
  let twoDocs = 0
  for (const [n, record] of records.entries()) {
    const matching = (lines.get(canonical(record.api_data)) ?? []).filter((i) => isDeepStrictEqual(catalog.docs[i], record.api_data))
    if (matching.length === 0) continue
    const query = instruction(record.code)
    if (query === undefined) throw new Error(`${file} record ${n + 1}: no instruction in ${JSON.stringify(record.code.slice(0, 80))}`)
    if (matching.length > 1) twoDocs++
    queries.push({ query, relevant: matching.map((i) => catalog.tools[i]!.label) })
  }
  expectCount(`${file} records`, records.length, counts.records)
  expectCount(`${file} records resolved`, queries.length, counts.resolved)
  expectCount(`${file} records matching two identical lines`, twoDocs, counts.twoDocs)
  return queries
}

function loadApiBench(name: string, catalogFile: string, evalFile: string, counts: (typeof APIBENCH_COUNTS)['huggingface']): RetrievalSet {
  const catalog = apiCatalog(catalogFile)
  expectCount(`${catalogFile} lines`, catalog.tools.length, counts.catalog)
  return { name, tools: catalog.tools, queries: apiQueries(catalog, evalFile, evalInstruction, counts) }
}

export const loadHuggingFace = () => loadApiBench('Hugging Face', 'huggingface_api.jsonl', 'huggingface_eval.json', APIBENCH_COUNTS.huggingface)
export const loadTensorflowHub = () => loadApiBench('TensorFlow Hub', 'tensorflowhub_api.jsonl', 'tensorflow_eval.json', APIBENCH_COUNTS.tensorflowhub)
export const loadTorchHub = () => loadApiBench('Torch Hub', 'torchhub_api.jsonl', 'torchhub_eval.json', APIBENCH_COUNTS.torchhub)

/** Torch Hub's train queries, labelled as the eval ones are, over the same catalog. */
export function loadTorchHubTrain(): LabelledQuery[] {
  return apiQueries(apiCatalog('torchhub_api.jsonl'), 'torchhub_train.json', trainInstruction, APIBENCH_COUNTS.torchhubTrain)
}

export function loadDiscoveryData(): DiscoveryData {
  return {
    metatoolSingle: loadMetatoolSingle(),
    metatoolMulti: loadMetatoolMulti(),
    liveMcpBench: loadLiveMcpBench(),
    huggingFace: loadHuggingFace(),
    tensorflowHub: loadTensorflowHub(),
    torchHub: loadTorchHub(),
    torchHubTrain: loadTorchHubTrain(),
  }
}
