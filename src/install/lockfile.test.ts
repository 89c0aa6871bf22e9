import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir, tree } from '../test-support/databases.js'
import { diffSkillFolders, hashSkillFolder } from './hash-skill-folder.js'
import { formatLockfile, lockEntry, readLockfile, writeLockfile, type Lockfile } from './lockfile.js'
import { LockfileError } from './bundle-error.js'

// In the format skills 1.7.4 (vercel-labs/skills) writes: writeLocalLock in src/local-lock.ts sorts skills by name, two-space
// JSON and a newline; each entry's fields in projectLockEntry's order (an older CLI's entry without skillPath, a field it adds after).
const FIXTURE = join(import.meta.dirname, 'fixtures/skills-lock.json')

describe('skills-lock.json', () => {
  it('reads the skills CLI lockfile and writes it back byte for byte', () => {
    const text = readFileSync(FIXTURE, 'utf8')
    const lock = readLockfile(FIXTURE)
    expect(Object.keys(lock.skills)).toEqual(['frontend-design', 'pdf', 'team-notes', 'vendored'])
    expect(lock.skills.pdf).toEqual({
      source: 'anthropics/skills',
      ref: 'main',
      sourceType: 'github',
      computedHash: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
      skillPath: 'skills/pdf/SKILL.md',
    })
    expect(formatLockfile(lock)).toBe(text)
    const copy = join(tempDir(), 'skills-lock.json')
    writeLockfile(copy, lock)
    expect(readFileSync(copy, 'utf8')).toBe(text)
  })

  it("builds entries with the skills CLI's fields in its order, leaving out those without a value", () => {
    const entry = lockEntry({
      computedHash: 'c'.repeat(64),
      skillPath: 'notes/SKILL.md',
      sourceType: 'git',
      ref: undefined,
      sourceUrl: 'https://h/r.git',
      source: 'https://h/r.git',
    })
    expect(Object.keys(entry)).toEqual(['source', 'sourceUrl', 'sourceType', 'skillPath', 'computedHash'])
    const team = readLockfile(FIXTURE).skills['team-notes']!
    expect(Object.keys(team).slice(0, 5)).toEqual(Object.keys(entry))
  })

  it('writes skills sorted by name, as two-space JSON with a final newline; a missing file is an empty lock', () => {
    const file = join(tempDir(), 'sub', 'skills-lock.json')
    expect(readLockfile(file)).toEqual({ version: 1, skills: {} })
    const lock: Lockfile = {
      version: 1,
      skills: {
        zeta: { source: 'o/r', sourceType: 'github', computedHash: 'b'.repeat(64) },
        alpha: { source: '/srv/skills', sourceType: 'local', computedHash: 'a'.repeat(64) },
      },
    }
    writeLockfile(file, lock)
    expect(readFileSync(file, 'utf8')).toBe(
      '{\n  "version": 1,\n  "skills": {\n    "alpha": {\n      "source": "/srv/skills",\n      "sourceType": "local",\n' +
        `      "computedHash": "${'a'.repeat(64)}"\n    },\n    "zeta": {\n      "source": "o/r",\n      "sourceType": "github",\n` +
        `      "computedHash": "${'b'.repeat(64)}"\n    }\n  }\n}\n`,
    )
  })

  it.each([
    ['{ "version": 1, ', /is not valid JSON/],
    ['[]', /a lockfile is a JSON object with "version" and "skills"$/],
    ['{ "version": 2, "skills": {} }', /version 2 is newer than the version 1 skillplane reads$/],
    ['{ "version": 1, "skills": { "x": { "source": "o/r", "sourceType": "github" } } }', /skills\.x\.computedHash must be a non-empty string$/],
    ['{ "version": 1, "skills": { "x": { "source": "o/r", "sourceType": "github", "computedHash": "ab", "ref": 3 } } }', /skills\.x\.ref must be a string$/],
    [
      '{ "version": 1, "skills": { "x": { "source": "u", "sourceUrl": [], "sourceType": "git", "computedHash": "ab" } } }',
      /skills\.x\.sourceUrl must be a string$/,
    ],
  ])('refuses %s, naming what is wrong', (text, message) => {
    const file = join(tempDir(), 'skills-lock.json')
    writeFileSync(file, text)
    expect(() => readLockfile(file)).toThrow(LockfileError)
    expect(() => readLockfile(file)).toThrow(message)
  })
})

describe('the folder hash', () => {
  it('is the skills CLI computedHash: each file path then its content, in localeCompare order, .git, node_modules and symlinks left out', () => {
    const dir = tree({
      'SKILL.md': '---\nname: pdf\n---\n',
      'B.md': 'upper',
      'a.md': 'lower',
      'scripts/run.sh': '#!/bin/sh\n',
      '.git/HEAD': 'ref: x',
      'node_modules/x/index.js': 'no',
      'sub/node_modules/y.js': 'no',
    })
    symlinkSync('a.md', join(dir, 'alias.md'))
    // localeCompare puts a.md before B.md, where code-unit order would not.
    const expected = createHash('sha256')
      .update('a.md' + 'lower' + 'B.md' + 'upper' + 'scripts/run.sh' + '#!/bin/sh\n' + 'SKILL.md' + '---\nname: pdf\n---\n')
      .digest('hex')
    const hash = hashSkillFolder(dir)
    expect(hash.computedHash).toBe(expected)
    expect(Object.keys(hash.files)).toEqual(['a.md', 'B.md', 'scripts/run.sh', 'SKILL.md'])
    expect(hash.files['a.md']).toBe(createHash('sha256').update('lower').digest('hex'))
    expect(hash.links).toEqual({ 'alias.md': 'a.md' })
    // Installed, the link is a copy of a.md: named in fromLinks, it hashes as the source does, and its file is listed.
    rmSync(join(dir, 'alias.md'))
    writeFileSync(join(dir, 'alias.md'), 'lower')
    expect(hashSkillFolder(dir).computedHash).not.toBe(expected)
    const installed = hashSkillFolder(dir, ['alias.md'])
    expect(installed.computedHash).toBe(expected)
    expect(installed.files['alias.md']).toBe(hash.files['a.md'])
  })

  it('names files added, removed and changed, symlinks included', () => {
    const dir = tree({ 'SKILL.md': 'one', 'keep.md': 'same', 'gone.md': 'bye' })
    const before = hashSkillFolder(dir)
    writeFileSync(join(dir, 'SKILL.md'), 'two')
    writeFileSync(join(dir, 'gone.md'), 'bye')
    mkdirSync(join(dir, 'new'))
    writeFileSync(join(dir, 'new/file.md'), 'hi')
    symlinkSync('keep.md', join(dir, 'link.md'))
    const after = hashSkillFolder(dir)
    expect(diffSkillFolders(before, after)).toEqual({ added: ['link.md', 'new/file.md'], removed: [], changed: ['SKILL.md'] })
    expect(diffSkillFolders(after, before)).toEqual({ added: [], removed: ['link.md', 'new/file.md'], changed: ['SKILL.md'] })
  })
})
