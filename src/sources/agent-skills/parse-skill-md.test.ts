import { describe, expect, it } from 'vitest'
import { parseSkillMd } from './parse-skill-md.js'

function byParseSkillMd(frontMatter: string): { data: unknown; keyLines: Record<string, number> } | 'not a mapping' {
  const parsed = parseSkillMd(`---\n${frontMatter}\n---\n# Body\n`)
  return parsed.ok ? { data: parsed.parsed.data, keyLines: { ...parsed.parsed.keyLines } } : 'not a mapping'
}

describe('front matter', () => {
  it('reads the usual shapes: quotes, nested metadata, text with colons and hashes inside', () => {
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
    expect(parsed).toMatchObject({ data: { metadata: { owner: 'docs-team', version: '1.0' } }, keyLines: { name: 2, metadata: 6, 'allowed-tools': 9 } })
  })

  it('refuses an alias to a missing anchor as invalid YAML, naming line 2', () => {
    expect(parseSkillMd('---\nname: *missing\ndescription: d\n---\nbody\n')).toMatchObject({
      ok: false,
      line: 2,
      message: expect.stringMatching(/^front matter is not valid YAML: .*alias/i),
    })
  })
})
