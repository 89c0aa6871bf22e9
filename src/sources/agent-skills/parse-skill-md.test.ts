import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml'
import { parseSkillMd } from './parse-skill-md.js'

/** What the YAML parser itself makes of a front matter block: the data and each top-level key's file line, or that it fails. */
function byYaml(frontMatter: string): { data: unknown; keyLines: Record<string, number> } | 'not a mapping' {
  const lineCounter = new LineCounter()
  const doc = parseDocument(frontMatter, { lineCounter, uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0 || !isMap(doc.contents)) return 'not a mapping'
  const keyLines: Record<string, number> = Object.create(null)
  for (const pair of doc.contents.items)
    if (isScalar(pair.key) && pair.key.range) keyLines[String(pair.key.value)] = lineCounter.linePos(pair.key.range[0]).line + 1
  try {
    return { data: doc.toJS(), keyLines: { ...keyLines } }
  } catch {
    return 'not a mapping'
  }
}

function byParseSkillMd(frontMatter: string): { data: unknown; keyLines: Record<string, number> } | 'not a mapping' {
  const parsed = parseSkillMd(`---\n${frontMatter}\n---\n# Body\n`)
  return parsed.ok ? { data: parsed.parsed.data, keyLines: { ...parsed.parsed.keyLines } } : 'not a mapping'
}

// Keys and text built from the characters YAML treats specially, so lines fall on both sides of what reads as plain text.
const key = fc.constantFrom('name', 'description', 'license', 'metadata', 'allowed-tools', 'owner', 'true', 'Null', '__proto__', 'a_b', 'x-1')
const text = fc.stringMatching(/^[a-zA-Z0-9 :#"'\\[\]{},&*!|>%@`?~.\t\u00e9\u2028-]{0,24}$/)
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(key, text).map(([k, v]) => `${k}: ${v}`) },
  { weight: 2, arbitrary: key.map((k) => `${k}:`) },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 1, max: 4 }), key, text).map(([n, k, v]) => `${' '.repeat(n)}${k}: ${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '# a comment', '  - item', 'key:\tvalue', 'plain continued text') },
)

describe('front matter', () => {
  it('reads as the YAML parser reads it, whatever the lines hold', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const frontMatter = lines.join('\n')
        expect(byParseSkillMd(frontMatter)).toEqual(byYaml(frontMatter))
      }),
      { numRuns: 1_000 },
    )
  })

  it('reads the usual shapes as YAML does: quotes, nested metadata, text with colons and hashes inside', () => {
    const frontMatter = [
      'name: pdf-tools',
      "description: Fill PDF forms, merge files (see https://example.com/a#b); it's fast",
      'license: "Apache-2.0"',
      "compatibility: 'needs python3'",
      'metadata:',
      '  owner: docs-team',
      '  version: "1.0"',
      'allowed-tools: Bash(git:*) Read',
    ].join('\n')
    const parsed = byParseSkillMd(frontMatter)
    expect(parsed).toEqual(byYaml(frontMatter))
    expect(parsed).toMatchObject({ data: { metadata: { owner: 'docs-team', version: '1.0' } }, keyLines: { name: 2, metadata: 6, 'allowed-tools': 9 } })
  })

  it('refuses an alias to a missing anchor as invalid YAML, naming line 2', () => {
    expect(parseSkillMd('---\nname: *missing\ndescription: d\n---\nbody\n')).toMatchObject({
      ok: false,
      line: 2,
      message: expect.stringMatching(/^front matter is not valid YAML: .*alias/i),
    })
  })

  it('leaves numbers, booleans, empty values and repeated keys to YAML', () => {
    for (const frontMatter of [
      'name: x\nversion: 1.0',
      'name: x\nenabled: true',
      'name: x\nlicense:',
      'name: x\nname: y',
      'name: x\nmetadata:\n  a: b\n   c: d',
    ]) {
      expect(byParseSkillMd(frontMatter)).toEqual(byYaml(frontMatter))
    }
  })
})
