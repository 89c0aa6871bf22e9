import { isMap, isScalar, LineCounter, parseDocument } from 'yaml'

export interface ParsedSkillMd {
  /** The front matter as plain data. */
  data: Record<string, unknown>
  /** File line of each top-level front-matter key. */
  keyLines: Record<string, number>
  /** The front matter block as written (with its --- lines), LF line ends. */
  head: string
  body: string
  /** File line where the body starts. */
  bodyLine: number
}

export type ParseResult = { ok: true; parsed: ParsedSkillMd } | { ok: false; line: number; message: string }

/**
 * Split SKILL.md into YAML front matter and a markdown body. Accepts a BOM and CRLF line ends;
 * YAML 1.2 through the `yaml` package, so nothing in the file is ever executed.
 */
export function parseSkillMd(text: string): ParseResult {
  const src = text.replace(/^\uFEFF/, '')
  // Only the front matter is split into lines: bodies are long, and copying them line by line is most of a load.
  const lines: string[] = []
  let end = -1
  let bodyStart = src.length
  for (let at = 0; at <= src.length;) {
    const newline = src.indexOf('\n', at)
    const next = newline === -1 ? src.length + 1 : newline + 1
    const line = src.slice(at, newline === -1 ? src.length : newline).replace(/\r$/, '')
    if (lines.length === 0 && line.trimEnd() !== '---') return { ok: false, line: 1, message: "missing front matter: SKILL.md must start with a '---' line" }
    lines.push(line)
    at = next
    if (lines.length > 1 && line.trimEnd() === '---') {
      end = lines.length - 1
      bodyStart = Math.min(at, src.length)
      break
    }
  }
  if (end === -1) return { ok: false, line: 1, message: "unclosed front matter: no closing '---' line" }
  const body = src.slice(bodyStart).replace(/\r\n/g, '\n')

  const simple = simpleFrontMatter(lines, end)
  if (simple) return { ok: true, parsed: { ...simple, head: lines.join('\n') + '\n', body, bodyLine: end + 2 } }

  const lineCounter = new LineCounter()
  const doc = parseDocument(lines.slice(1, end).join('\n'), { lineCounter, uniqueKeys: true, prettyErrors: false })
  // Front matter starts on file line 2.
  const fileLine = (offset: number) => lineCounter.linePos(offset).line + 1
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!
    return { ok: false, line: fileLine(error.pos[0]), message: `front matter is not valid YAML: ${error.message.split('\n')[0]}` }
  }
  if (!isMap(doc.contents)) return { ok: false, line: 2, message: 'front matter must be a mapping of keys to values' }
  // No prototype: a "__proto__" key in the front matter is an ordinary key here.
  const keyLines: Record<string, number> = Object.create(null)
  for (const pair of doc.contents.items) {
    if (isScalar(pair.key) && pair.key.range) keyLines[String(pair.key.value)] = fileLine(pair.key.range[0])
  }
  let data: Record<string, unknown>
  try {
    data = doc.toJS() as Record<string, unknown>
  } catch (error) {
    // An alias to an anchor that isn't there parses, and fails only here.
    return { ok: false, line: 2, message: `front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}` }
  }
  return {
    ok: true,
    parsed: {
      data,
      keyLines,
      head: lines.join('\n') + '\n',
      body,
      bodyLine: end + 2,
    },
  }
}

const KEY_LINE = /^( *)([A-Za-z][\w-]*):(?:[ ]+(.*))?$/
// The plain scalars YAML 1.2's core schema reads as something other than a string, among those starting with a letter.
const NOT_STRINGS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL'])

/**
 * Front matter in the shape nearly every SKILL.md has (`key: text` lines, one level of `key:` with
 * indented `key: text` lines below), read without the YAML parser: the same data and lines as
 * `parseDocument` gives (the tests hold the two equal), at a fraction of a first load's cost. Null
 * for anything else (lists, numbers, comments, blank or continued lines, repeated keys...), which
 * the YAML parser reads instead.
 */
function simpleFrontMatter(lines: readonly string[], end: number): { data: Record<string, unknown>; keyLines: Record<string, number> } | null {
  const data: Record<string, unknown> = {}
  const keyLines: Record<string, number> = Object.create(null)
  let parent: Record<string, unknown> | null = null
  let indent = 0
  for (let i = 1; i < end; i++) {
    const match = KEY_LINE.exec(lines[i]!)
    if (!match) return null
    const [, spaces, key, raw] = match as unknown as [string, string, string, string | undefined]
    if (key === '__proto__' || NOT_STRINGS.has(key)) return null
    if (spaces.length > 0) {
      // A nested key: under a `key:` line, all at its first child's indentation.
      if (!parent || (indent > 0 && spaces.length !== indent) || raw === undefined) return null
      indent = spaces.length
      const value = scalar(raw)
      if (value === null || Object.hasOwn(parent, key)) return null
      parent[key] = value
      continue
    }
    if (parent && indent === 0) return null
    parent = null
    if (Object.hasOwn(data, key)) return null
    keyLines[key] = i + 1
    if (raw === undefined) {
      parent = {}
      indent = 0
      data[key] = parent
      continue
    }
    const value = scalar(raw)
    if (value === null) return null
    data[key] = value
  }
  // A `key:` with nothing under it is null in YAML: left to the parser.
  return parent && indent === 0 ? null : { data, keyLines }
}

/** A one-line string scalar that needs no YAML rules beyond quotes, else null. */
function scalar(raw: string): string | null {
  const text = raw.trimEnd()
  // Tabs, control characters and Unicode line breaks: YAML has rules of its own for each.
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f || code === 0x85 || code === 0x2028 || code === 0x2029 || code === 0xfeff) return null
  }
  const first = text[0]
  if (first === '"') return /^"[^"\\]*"$/.test(text) ? text.slice(1, -1) : null
  if (first === "'") return /^'[^']*'$/.test(text) ? text.slice(1, -1) : null
  if (!/^[A-Za-z]/.test(text) || NOT_STRINGS.has(text)) return null
  // No comment, no nested mapping: both read differently by YAML.
  return /\s#|:\s|:$/.test(text) ? null : text
}
