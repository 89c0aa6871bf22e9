import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { Lexer, marked } from 'marked'
import type { Finding } from './finding.js'
import { isInside } from '../../system/index.js'

const MAX_BODY_LINES = 500

/**
 * Checks beyond the specification: an over-long body, and relative links (to references,
 * scripts, assets; `{baseDir}/` is the skill's folder) that point at nothing or lead out of it.
 */
export function checkBody(body: string, bodyLine: number, options: { file: string; dir: string; real: string }): Finding[] {
  const findings: Finding[] = []
  const lines = body.split('\n')
  if (lines.length > MAX_BODY_LINES) {
    findings.push({
      file: options.file,
      line: bodyLine + MAX_BODY_LINES,
      severity: 'warning',
      message: `the body has ${lines.length} lines; keep it under ${MAX_BODY_LINES} and move detail to references/`,
    })
  }
  const hrefs = linkHrefs(body)
  const root = options.real
  for (const href of new Set(hrefs)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#') || href.startsWith('//')) continue
    // Many skills write `{baseDir}/scripts/x.py` for a file of their own, the way clients substitute it.
    const path = safeDecode(href.split('#')[0]!.split('?')[0]!).replace(/^\{baseDir\}\//, '')
    if (path === '') continue
    const line =
      bodyLine +
      Math.max(
        0,
        lines.findIndex((l) => l.includes(href)),
      )
    const real = realTarget(isAbsolute(path) ? path : resolve(options.dir, path))
    if (real === null) {
      findings.push({ file: options.file, line, severity: 'warning', message: `link to "${href}", which does not exist` })
      continue
    }
    if (!isInside(root, real))
      findings.push({ file: options.file, line, severity: 'warning', message: `link to "${href}" leads outside the skill's folder (${relative(root, real)})` })
  }
  return findings
}

/**
 * The targets of the body's links and images. Lexed as marked's own `lex` does, except that inline
 * text without a "[" is skipped: it can't hold a link to a file, and inline lexing is most of the cost.
 */
function linkHrefs(body: string): string[] {
  const lexer = new Lexer()
  lexer.blockTokens(body.replace(/\r\n|\r/g, '\n'), lexer.tokens)
  for (let i = 0; i < lexer.inlineQueue.length; i++) {
    const next = lexer.inlineQueue[i]!
    if (!next.src.includes('[')) continue
    lexer.state.inRawBlock = false
    lexer.inlineTokens(next.src, next.tokens)
  }
  lexer.inlineQueue = []
  const hrefs: string[] = []
  marked.walkTokens(lexer.tokens, (token) => {
    if (token.type === 'link' || token.type === 'image') hrefs.push(token.href)
  })
  return hrefs
}

/** Where a link leads, symlinks resolved, or null when nothing is there: one call where exists-then-resolve took two. */
function realTarget(target: string): string | null {
  try {
    return realpathSync.native(target)
  } catch {
    return null
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURI(path)
  } catch {
    return path
  }
}
