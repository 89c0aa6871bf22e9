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
