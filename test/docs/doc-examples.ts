import { readFileSync } from 'node:fs'
import { Lexer, type Tokens } from 'marked'

export interface Example {
  /** The shell commands, as written. */
  command: string
  /** The documented output (the code block right after the commands), if any. */
  output: string | null
  /** 1-based line of the command block in the file. */
  line: number
  /** Why the block is not run, when an HTML comment `<!-- doc-test: skip (reason) -->` precedes it. */
  skip: string | null
  /** A "$ command" line of a transcript: its output shows stderr too. */
  transcript: boolean
}

/**
 * The `sh` blocks of one `## ` section of a markdown file, each with the code block that follows
 * it as its output. Read with marked's lexer, so code inside other blocks is never mistaken.
 */
export function examplesIn(file: string, section: string): Example[] {
  const text = readFileSync(file, 'utf8')
  const tokens = Lexer.lex(text)
  const examples: Example[] = []
  let inSection = false
  let offset = 0
  let skip: string | null = null
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    const start = text.indexOf(token.raw, offset)
    offset = start + token.raw.length
    if (token.type === 'heading' && (token as Tokens.Heading).depth === 2) inSection = (token as Tokens.Heading).text === section
    if (!inSection) continue
    if (token.type === 'html') {
      const marker = /<!--\s*doc-test:\s*skip\s*\(([^)]*)\)\s*-->/.exec(token.raw)
      if (marker) skip = marker[1]!
      continue
    }
    if (token.type !== 'code') continue
    const code = token as Tokens.Code
    // A transcript: "$ command" lines, each followed by its output.
    if (!code.lang && code.text.startsWith('$ ')) {
      const line = text.slice(0, start).split('\n').length + 1
      let current: Example | null = null
      code.text.split('\n').forEach((row, n) => {
        if (row.startsWith('$ ')) {
          current = { command: row.slice(2), output: '', line: line + n, skip, transcript: true }
          examples.push(current)
        } else if (current) current.output = current.output ? `${current.output}\n${row}` : row
      })
      skip = null
      continue
    }
    if (code.lang !== 'sh') continue
    const next = tokens[i + 1]
    const output = next?.type === 'code' && (next as Tokens.Code).lang !== 'sh' ? (next as Tokens.Code).text : null
    examples.push({ command: (token as Tokens.Code).text, output, line: text.slice(0, start).split('\n').length, skip, transcript: false })
    skip = null
  }
  return examples
}

const ULID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g
const TIME = /\b\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:\.\d+)?Z| \d\d:\d\d)\b/g
const KEY = /\bsp_[A-Za-z0-9_-]{20,}/g

/**
 * Compares documented outputs with real ones. Run-specific values (ids, times, keys) may differ;
 * an id seen in a documented output is remembered with the real one at its place, so a later
 * command that uses it (a cursor, an approval id) is run with the real id.
 */
export class OutputMatcher {
  readonly ids = new Map<string, string>()

  /**
   * The command with every documented id replaced by the real one it stood for, and a key the
   * documentation shortened (`sp_-cb2…`) by the real key of the documented key it starts.
   */
  command(command: string): string {
    return command
      .replace(ULID, (id) => this.ids.get(id) ?? id)
      .replace(/\bsp_[A-Za-z0-9_-]+…/g, (short) => {
        const prefix = short.slice(0, -1)
        return [...this.ids.entries()].find(([doc]) => doc.startsWith('sp_') && doc.startsWith(prefix))?.[1] ?? short
      })
  }

  /** Null when the actual output is what the documentation shows, else what differs. */
  compare(documented: string, printed: string): string | null {
    // npm run's own lines ("> skillplane@0.1.0 cli", the command) are not the program's output.
    const actual = printed.replace(/^> skillplane@[^\n]*\n> [^\n]*\n\n?/gm, '')
    const doc = parseJson(documented)
    if (doc.ok) {
      const real = parseJson(actual)
      return real.ok ? this.#json(doc.value, real.value, '$') : `documented JSON, got: ${actual.slice(0, 300)}`
    }
    const docLines = documented.split('\n').filter((l) => l.trim() !== '')
    const lines = actual.split('\n').filter((l) => l.trim() !== '')
    if (docLines.every((l) => parseJson(l).ok)) {
      if (docLines.length !== lines.length) return `${docLines.length} documented lines, ${lines.length} actual:\n${actual}`
      for (let i = 0; i < docLines.length; i++) {
        const real = parseJson(lines[i]!)
        if (!real.ok) return `line ${i + 1} is not JSON: ${lines[i]}`
        const doc = parseJson(docLines[i]!)
        const problem = doc.ok ? this.#json(doc.value, real.value, `line ${i + 1}`) : null
        if (problem) return problem
      }
      return null
    }
    // Text (headers, tables): each documented line, in order, among the actual ones.
    let at = 0
    for (const line of docLines) {
      const found = lines.findIndex((l, i) => i >= at && this.#line(line, l))
      if (found === -1) return `documented line not in the output:\n  ${line}\noutput:\n${actual}`
      at = found + 1
    }
    return null
  }

  #line(documented: string, actual: string): boolean {
    const pattern = escape(normal(documented.trim())).replace(/…/g, '.*')
    if (!new RegExp(`^${pattern}$`).test(normal(actual.trim()))) return false
    this.#remember(documented, actual)
    return true
  }

  #remember(documented: string, actual: string): void {
    for (const pattern of [ULID, KEY]) {
      const docIds = documented.match(pattern) ?? []
      const realIds = actual.match(pattern) ?? []
      docIds.forEach((id, i) => realIds[i] !== undefined && !this.ids.has(id) && this.ids.set(id, realIds[i]!))
    }
  }

  #json(doc: unknown, actual: unknown, path: string): string | null {
    if (doc === '…') return null
    if (typeof doc === 'string' && typeof actual === 'string') {
      if (doc === actual) return null
      // A documented "…" stands for text left out.
      const shortened = doc.includes('…') && new RegExp(`^${escape(normal(doc)).replace(/…/g, '[\\s\\S]*')}$`).test(normal(actual))
      if (!shortened && normal(doc) !== normal(actual)) return `${path}: documented ${JSON.stringify(doc)}, got ${JSON.stringify(actual)}`
      this.#remember(doc, actual)
      return null
    }
    if (Array.isArray(doc)) {
      if (!Array.isArray(actual)) return `${path}: documented an array, got ${JSON.stringify(actual)}`
      const open = doc.at(-1) === '…'
      const items = open ? doc.slice(0, -1) : doc
      if (open ? actual.length < items.length : actual.length !== items.length) return `${path}: documented ${items.length} items, got ${actual.length}`
      for (let i = 0; i < items.length; i++) {
        const problem = this.#json(items[i], actual[i], `${path}[${i}]`)
        if (problem) return problem
      }
      return null
    }
    if (doc !== null && typeof doc === 'object') {
      if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: documented an object, got ${JSON.stringify(actual)}`
      const documented = doc as Record<string, unknown>
      const real = actual as Record<string, unknown>
      for (const [key, value] of Object.entries(documented)) {
        if (key === '…') continue
        if (!(key in real)) return `${path}.${key}: documented, but not in the output`
        // Durations depend on the machine.
        if (key === 'durationMs' && typeof value === 'number' && typeof real[key] === 'number') continue
        const problem = this.#json(value, real[key], `${path}.${key}`)
        if (problem) return problem
      }
      if (!('…' in documented)) {
        const extra = Object.keys(real).filter((k) => !(k in documented))
        if (extra.length) return `${path}: the output has ${extra.map((k) => `"${k}"`).join(', ')}, which the documentation doesn't show`
      }
      return null
    }
    return Object.is(doc, actual) ? null : `${path}: documented ${JSON.stringify(doc)}, got ${JSON.stringify(actual)}`
  }
}

/** Run-specific values made alike: ids, times, keys. */
function normal(text: string): string {
  return text.replace(ULID, '<id>').replace(TIME, '<time>').replace(KEY, '<key>')
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
