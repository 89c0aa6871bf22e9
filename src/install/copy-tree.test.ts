import { lstatSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir, tree } from '../test-support/databases.js'
import { DEFAULT_ARCHIVE_LIMITS } from './index.js'
import { copyTree } from './copy-tree.js'

/** A skill folder with symlinks of every kind: to a file, to a folder, back to a folder holding it, out of it, to nothing. */
function skillWithLinks() {
  const outside = tree({ 'secret.txt': 'not for the skill\n' })
  const dir = tree({ 'SKILL.md': '# skill\n', 'templates/a.md': 'A\n', 'templates/deep/b.md': 'B\n' })
  symlinkSync('templates/a.md', join(dir, 'a.md'))
  symlinkSync('templates', join(dir, 'shared'))
  symlinkSync('..', join(dir, 'templates/deep/up'))
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'secret.txt'))
  symlinkSync('missing.md', join(dir, 'gone.md'))
  return dir
}

describe('copyTree', () => {
  it('keeps symlinks that stay inside, as links, and leaves the others out', () => {
    const to = join(tempDir(), 'copy')
    const leftOut = copyTree(skillWithLinks(), to)
    expect(readlinkSync(join(to, 'a.md'))).toBe('templates/a.md')
    expect(readlinkSync(join(to, 'shared'))).toBe('templates')
    expect(leftOut.map((l) => l.path)).toEqual(['gone.md', 'secret.txt'])
  })

  it('with dereference, copies what each link points at, as the skills CLI installs, and leaves out links out of the folder or back into it', () => {
    const to = join(tempDir(), 'copy')
    const leftOut = copyTree(skillWithLinks(), to, DEFAULT_ARCHIVE_LIMITS, { dereference: true })
    expect(lstatSync(join(to, 'a.md')).isFile()).toBe(true)
    expect(readFileSync(join(to, 'a.md'), 'utf8')).toBe('A\n')
    expect(readFileSync(join(to, 'shared/deep/b.md'), 'utf8')).toBe('B\n')
    expect(leftOut).toEqual([
      { path: 'gone.md', reason: 'a symlink that points at nothing (missing.md)' },
      { path: 'secret.txt', reason: expect.stringMatching(/^a symlink that leads outside the folder \(to \/.*secret\.txt\)$/) },
      { path: 'shared/deep/up', reason: 'a symlink to a folder that holds it (..)' },
      { path: 'templates/deep/up', reason: 'a symlink to a folder that holds it (..)' },
    ])
    expect(() => lstatSync(join(to, 'secret.txt'))).toThrow(/ENOENT/)
  })

  it('counts the copies against the limits', () => {
    const to = join(tempDir(), 'copy')
    expect(() => copyTree(skillWithLinks(), to, { ...DEFAULT_ARCHIVE_LIMITS, maxFiles: 4 }, { dereference: true })).toThrow(
      'archive entry "templates/a.md" refused: more than the limit of 4 files',
    )
  })
})
