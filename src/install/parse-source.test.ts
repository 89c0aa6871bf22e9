import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../test-support/databases.js'
import { parseSource, pinSource } from './index.js'
import { SourceError } from './bundle-error.js'
import { type ParsedSource } from './parse-source.js'

const git = (location: string, extra: Partial<ParsedSource> = {}): ParsedSource => ({
  kind: 'git',
  location,
  ref: null,
  subpath: null,
  source: location,
  sourceType: 'git',
  ...extra,
})

describe('parseSource', () => {
  const cwd = tempDir('skillplane-sources-')
  mkdirSync(join(cwd, 'my-skills/pdf'), { recursive: true })
  writeFileSync(join(cwd, 'bundle.tgz'), '')
  writeFileSync(join(cwd, 'notes.txt'), '')

  it.each<[string, ParsedSource]>([
    ['vercel-labs/agent-skills', git('https://github.com/vercel-labs/agent-skills.git', { source: 'vercel-labs/agent-skills', sourceType: 'github' })],
    ['o/r.git#v1.2', git('https://github.com/o/r.git', { source: 'o/r', sourceType: 'github', ref: 'v1.2' })],
    ['o/r/skills/pdf', git('https://github.com/o/r.git', { source: 'o/r', sourceType: 'github', subpath: 'skills/pdf' })],
    ['https://github.com/o/r', git('https://github.com/o/r.git', { source: 'o/r', sourceType: 'github' })],
    ['https://github.com/o/r.git', git('https://github.com/o/r.git', { source: 'o/r', sourceType: 'github' })],
    [
      'https://github.com/o/r/tree/main/skills/pdf',
      git('https://github.com/o/r.git', { source: 'o/r', sourceType: 'github', ref: 'main', subpath: 'skills/pdf' }),
    ],
    ['https://gitlab.com/g/sub/r/-/tree/v2/skills', git('https://gitlab.com/g/sub/r.git', { ref: 'v2', subpath: 'skills', sourceType: 'gitlab' })],
    ['https://git.example.com/g/r/-/tree/main', git('https://git.example.com/g/r.git', { ref: 'main', sourceType: 'gitlab' })],
    ['https://gitlab.com/g/r#v1', git('https://gitlab.com/g/r.git', { ref: 'v1', sourceType: 'gitlab' })],
    ['https://git.example.com/team/skills.git#stable', git('https://git.example.com/team/skills.git', { ref: 'stable' })],
    ['git@github.com:o/r.git', git('git@github.com:o/r.git')],
    ['ssh://git@host:2222/o/r.git#main', git('ssh://git@host:2222/o/r.git', { ref: 'main' })],
    ['file:///srv/git/skills', git('file:///srv/git/skills')],
    [
      'https://example.com/dl/skills.tar.gz?token=1',
      {
        kind: 'archive-url',
        location: 'https://example.com/dl/skills.tar.gz?token=1',
        ref: null,
        subpath: null,
        source: 'https://example.com/dl/skills.tar.gz?token=1',
        sourceType: 'archive',
      },
    ],
    ['my-skills', { kind: 'folder', location: join(cwd, 'my-skills'), ref: null, subpath: null, source: join(cwd, 'my-skills'), sourceType: 'local' }],
    [
      './my-skills/pdf',
      { kind: 'folder', location: join(cwd, 'my-skills/pdf'), ref: null, subpath: null, source: join(cwd, 'my-skills/pdf'), sourceType: 'local' },
    ],
    [
      'bundle.tgz',
      { kind: 'archive-file', location: join(cwd, 'bundle.tgz'), ref: null, subpath: null, source: join(cwd, 'bundle.tgz'), sourceType: 'archive' },
    ],
    [
      `file://${cwd}/bundle.tgz`,
      { kind: 'archive-file', location: join(cwd, 'bundle.tgz'), ref: null, subpath: null, source: join(cwd, 'bundle.tgz'), sourceType: 'archive' },
    ],
  ])('reads %s', (input, parsed) => {
    expect(parseSource(input, cwd)).toEqual(parsed)
  })

  it('expands ~ to the home folder', () => {
    expect(() => parseSource('~/surely-not-there-skillplane', cwd)).toThrow(`no such folder or file: ${join(homedir(), 'surely-not-there-skillplane')}`)
  })

  it.each([
    [
      '',
      'no SOURCE given: give a git URL (https://…, ssh://…, git@HOST:…, file://…), OWNER/REPO for GitHub, a local folder, or a .zip, .tar.gz or .tgz URL or file',
    ],
    ['just-a-word', '"just-a-word" is not a source: give a git URL'],
    ['ftp://example.com/skills', '"ftp://example.com/skills" uses ftp://, which skillplane doesn\'t fetch'],
    ['https://github.com/o/r/blob/main/SKILL.md', '"https://github.com/o/r/blob/main/SKILL.md" is not a GitHub repository URL'],
    ['o/r/skills/../../etc', 'the path "skills/../../etc" (in o/r/skills/../../etc) must stay inside the repository'],
    ['o/r#--upload-pack=x', '"--upload-pack=x" (in o/r#--upload-pack=x) is not a branch, tag or commit name'],
    ['o/r#a..b', '"a..b" (in o/r#a..b) is not a branch, tag or commit name'],
    ['./missing', `no such folder or file: ${join(cwd, 'missing')}`],
    ['notes.txt', `${join(cwd, 'notes.txt')} is not a folder or a .zip, .tar.gz or .tgz archive`],
  ])('refuses %j, naming what is wrong', (input, message) => {
    expect(() => parseSource(input, cwd)).toThrow(SourceError)
    expect(() => parseSource(input, cwd)).toThrow(message)
  })

  it('pins git sources only, and only at one ref', () => {
    expect(pinSource(parseSource('o/r', cwd), 'v1').ref).toBe('v1')
    expect(() => pinSource(parseSource('my-skills', cwd), 'v1')).toThrow(`--pin applies to git sources only, and ${join(cwd, 'my-skills')} is a folder`)
    expect(() => pinSource(parseSource('o/r#main', cwd), 'v1')).toThrow('the source names the ref "main" and --pin names "v1": give one')
    expect(() => pinSource(parseSource('o/r', cwd), '-x')).toThrow('"-x" (in --pin) is not a branch, tag or commit name')
  })

  it('refuses a source git would read as an option, and credentials in a URL', () => {
    for (const text of ['-fx@h:p', '--upload-pack=touch /tmp/x', '-u@host:repo']) expect(() => parseSource(text)).toThrow(/starts with "-"|is not a source/)
    expect(() => parseSource('https://user:token@git.example.com/team/skills.git')).toThrow(/carries credentials in its URL/)
    expect(() => parseSource('https://token@example.com/skills.zip')).toThrow(/carries credentials in its URL/)
  })
})
