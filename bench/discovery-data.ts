import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const DATA = fileURLToPath(new URL('./data/', import.meta.url))

/** One tool of a catalog, as the data set describes it. */
export interface CatalogTool {
  /** What labels name: the MetaTool tool name, the LiveMCPBench tool name (shared across servers). */
  label: string
  description: string
  /** LiveMCPBench only: the tool's JSON Schema input, its server and the server's category. */
  inputSchema?: Record<string, unknown>
  server?: string
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

export function loadDiscoveryData(): DiscoveryData {
  return { metatoolSingle: loadMetatoolSingle(), metatoolMulti: loadMetatoolMulti(), liveMcpBench: loadLiveMcpBench() }
}
