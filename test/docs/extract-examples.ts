import { lexer, type Token, type Tokens } from 'marked'

/** One command example of a markdown file: what to run and, when documented, what it prints. */
export interface DocExample {
  file: string
  /** 1-based line of the block holding the command. */
  line: number
  /** A bash script (the block's text, or one `$ ` command of a transcript). */
  command: string
  /** The documented output, or null when the doc shows none (run for its effect only). */
  expected: string | null
  /** The language of the output block (`json` enables the reformatting-tolerant comparison). */
  outputLang: string
  /** Set by a `<!-- doc-test: skip (reason) -->` marker: not run, but counted and printed. */
  skip: string | null
  /** Set by `<!-- doc-test: shape -->`: compare JSON keys and value types only. */
  shape: boolean
}

/** An output block to compare with the server's startup output (`<!-- doc-test: server-output -->`). */
export interface ServerOutput {
  file: string
  line: number
  expected: string
}

/** A code block a later example needs as a file (`<!-- doc-test: file NAME -->`), written before the examples after it run. */
export interface DocFile {
  file: string
  line: number
  name: string
  text: string
}

export interface ExtractedDoc {
  /** Examples and files, in document order. */
  steps: Array<DocExample | DocFile>
  serverOutputs: ServerOutput[]
}

const COMMAND_LANGS = new Set(['sh', 'bash', 'shell', 'console'])
const OUTPUT_LANGS = new Set(['', 'text', 'json', 'xml'])
const MARKER = /^<!--\s*doc-test:\s*([\w-]+)\s*(?:\((.*)\)|([\w.-]+))?\s*-->\s*$/s

type Marker = { kind: 'skip'; reason: string } | { kind: 'file'; name: string } | { kind: 'repeat' } | { kind: 'shape' } | { kind: 'server-output' }

function parseMarker(token: Token, file: string, line: number): Marker | null {
  if (token.type !== 'html') return null
  const match = MARKER.exec(token.raw.trim())
  if (!match) return null
  const [, kind, reason, name] = match
  if (kind === 'file') {
    if (!name) throw new Error(`${file}:${line}: a doc-test file marker needs a file name: <!-- doc-test: file NAME -->`)
    return { kind, name }
  }
  if (kind === 'skip') {
    if (!reason?.trim()) throw new Error(`${file}:${line}: a doc-test skip marker needs a reason: <!-- doc-test: skip (why) -->`)
    return { kind, reason: reason.trim() }
  }
  if (kind === 'repeat' || kind === 'shape' || kind === 'server-output') return { kind }
  throw new Error(`${file}:${line}: unknown doc-test marker "${kind}" (skip, file, repeat, shape or server-output)`)
}

const isTranscript = (text: string) => text.startsWith('$ ')

/** Splits a `$ command` / output transcript into its commands, continuation lines (`\`) included. */
export function splitTranscript(text: string): Array<{ command: string; output: string }> {
  const steps: Array<{ command: string; output: string[] }> = []
  let continuing = false
  for (const line of text.split('\n')) {
    const current = steps[steps.length - 1]
    if (continuing && current) {
      current.command += '\n' + line
      continuing = line.endsWith('\\')
    } else if (line.startsWith('$ ')) {
      steps.push({ command: line.slice(2), output: [] })
      continuing = line.endsWith('\\')
    } else {
      current?.output.push(line)
    }
  }
  return steps.map((s) => ({ command: s.command, output: s.output.join('\n') }))
}

/**
 * The command examples of one markdown file, in document order, found with marked's lexer: a
 * `sh` block paired with the output block right after it, and `$ command` transcripts.
 */
export function extractExamples(markdown: string, file: string): ExtractedDoc {
  const tokens = lexer(markdown)
  const examples: Array<DocExample | DocFile> = []
  const serverOutputs: ServerOutput[] = []
  let offset = 0
  const located = tokens.map((token) => {
    const at = markdown.indexOf(token.raw, offset)
    if (at >= 0) offset = at + token.raw.length
    return { token, line: markdown.slice(0, Math.max(at, 0)).split('\n').length }
  })
  const blocks = located.filter(({ token }) => token.type !== 'space')
  let lastRun: DocExample | null = null
  for (let i = 0; i < blocks.length; i++) {
    const { token, line } = blocks[i]!
    if (token.type !== 'code') continue
    const code = token as Tokens.Code
    const lang = (code.lang ?? '').trim()
    const before = blocks[i - 1]
    const marker = before ? parseMarker(before.token, file, before.line) : null
    if (marker?.kind === 'file') {
      examples.push({ file, line, name: marker.name, text: code.text })
      continue
    }
    if (marker?.kind === 'server-output') {
      serverOutputs.push({ file, line, expected: code.text })
      continue
    }
    if (marker?.kind === 'repeat') {
      if (!lastRun) throw new Error(`${file}:${line}: doc-test repeat marker with no example before it`)
      examples.push({ ...lastRun, line, expected: code.text, outputLang: lang })
      continue
    }
    const skip = marker?.kind === 'skip' ? marker.reason : null
    const shape = marker?.kind === 'shape'
    if (isTranscript(code.text) && (COMMAND_LANGS.has(lang) || OUTPUT_LANGS.has(lang))) {
      for (const step of splitTranscript(code.text)) {
        lastRun = { file, line, command: step.command, expected: step.output, outputLang: lang, skip, shape }
        examples.push(lastRun)
      }
      continue
    }
    if (!COMMAND_LANGS.has(lang)) continue
    const next = blocks[i + 1]?.token
    const output =
      next?.type === 'code' && OUTPUT_LANGS.has((next as Tokens.Code).lang ?? '') && !isTranscript((next as Tokens.Code).text) ? (next as Tokens.Code) : null
    lastRun = { file, line, command: code.text, expected: output?.text ?? null, outputLang: output?.lang ?? '', skip, shape }
    examples.push(lastRun)
    if (output) i++
  }
  return { steps: examples, serverOutputs }
}
