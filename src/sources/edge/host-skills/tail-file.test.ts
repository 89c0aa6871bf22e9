import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir, tree } from '../../../test-support/databases.js'
import { runSkill } from '../../../test-support/run-skill.js'
import { TAIL_MAX_BYTES, TAIL_MAX_LINE, tailFile } from './tail-file.js'

const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`)

describe('tail_file', () => {
  const root = realpathSync(tree({ 'app.log': numbered(1, 500).join('\n') + '\n', 'short.log': 'one\r\ntwo', 'empty.log': '', 'nested/deep.log': 'deep\n' }))
  const outside = realpathSync(tree({ 'secret.txt': 'top secret\n' }))
  const skill = tailFile([root])

  it('returns the last lines of a file inside a root', async () => {
    expect(await runSkill(skill, { path: join(root, 'app.log'), lines: 3 })).toEqual({
      path: join(root, 'app.log'),
      lines: numbered(498, 500),
      truncated: false,
    })
    expect((await runSkill(skill, { path: join(root, 'app.log') })).lines).toEqual(numbered(401, 500))
    // A file shorter than asked is returned whole; a missing last newline and CRLF are fine.
    expect(await runSkill(skill, { path: join(root, 'short.log'), lines: 10 })).toMatchObject({ lines: ['one', 'two'], truncated: false })
    expect(await runSkill(skill, { path: join(root, 'empty.log') })).toMatchObject({ lines: [], truncated: false })
    expect((await runSkill(skill, { path: join(root, 'nested/../nested/deep.log') })).path).toBe(join(root, 'nested/deep.log'))
  })

  it('reads only the end of a big file', async () => {
    const dir = tempDir()
    const lines = numbered(1, 300_000)
    writeFileSync(join(dir, 'big.log'), lines.join('\n') + '\n')
    const big = tailFile([dir])
    expect(await runSkill(big, { path: join(dir, 'big.log'), lines: 5000 })).toMatchObject({ lines: lines.slice(-5000), truncated: false })
    // Lines of 1 KiB: 5000 of them don't fit in the bytes read, so fewer come back, marked truncated.
    const wide = Array.from({ length: 3000 }, (_, i) => `${i}`.padEnd(1023, 'x'))
    writeFileSync(join(dir, 'wide.log'), wide.join('\n') + '\n')
    const result = await runSkill(big, { path: join(dir, 'wide.log'), lines: 5000 })
    expect(result.truncated).toBe(true)
    expect(result.lines.length).toBe(TAIL_MAX_BYTES / 1024 - 1)
    expect(result.lines).toEqual(wide.slice(-result.lines.length))
  })

  it('cuts long lines and says so', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'long.log'), 'x'.repeat(10_000) + '\nshort\n')
    const result = await runSkill(tailFile([dir]), { path: join(dir, 'long.log'), lines: 2 })
    expect(result).toEqual({ path: join(realpathSync(dir), 'long.log'), lines: ['x'.repeat(TAIL_MAX_LINE), 'short'], truncated: true })
  })

  it('refuses files outside the roots, however the path gets there', async () => {
    const message = `is outside the folders this edge may read (${root}), once symlinks are resolved`
    await expect(runSkill(skill, { path: join(outside, 'secret.txt') })).rejects.toThrow(message)
    await expect(runSkill(skill, { path: `${root}/../${outside.split('/').at(-1)}/secret.txt` })).rejects.toThrow(message)
    await expect(runSkill(skill, { path: '/etc/passwd' })).rejects.toThrow(message)
    const linked = tempDir()
    symlinkSync(join(outside, 'secret.txt'), join(linked, 'escape.log'))
    symlinkSync(outside, join(linked, 'escape-dir'))
    await expect(runSkill(tailFile([linked]), { path: join(linked, 'escape.log') })).rejects.toThrow('is outside the folders')
    await expect(runSkill(tailFile([linked]), { path: join(linked, 'escape-dir/secret.txt') })).rejects.toThrow('is outside the folders')
    // A missing file outside the roots does not reveal that it is missing.
    await expect(runSkill(skill, { path: join(outside, 'nothing.txt') })).rejects.toThrow(message)
  })

  it('follows symlinks that stay inside, and accepts a root given through a symlink', async () => {
    const linked = tempDir()
    symlinkSync(join(root, 'app.log'), join(root, 'current.log'))
    expect(await runSkill(skill, { path: join(root, 'current.log'), lines: 1 })).toMatchObject({ path: join(root, 'app.log'), lines: ['line 500'] })
    symlinkSync(root, join(linked, 'logs'))
    expect(await runSkill(tailFile([join(linked, 'logs')]), { path: join(linked, 'logs/app.log'), lines: 1 })).toMatchObject({ lines: ['line 500'] })
  })

  it('names a missing file, a folder and a FIFO inside the roots', async () => {
    await expect(runSkill(skill, { path: join(root, 'missing.log') })).rejects.toThrow(`can't read ${join(root, 'missing.log')}: no such file`)
    await expect(runSkill(skill, { path: join(root, 'nested') })).rejects.toThrow('is not a regular file')
    mkdirSync(join(root, 'pipes'))
    execFileSync('mkfifo', [join(root, 'pipes/fifo')])
    await expect(runSkill(skill, { path: join(root, 'pipes/fifo') })).rejects.toThrow('is not a regular file')
  })

  it('refuses a relative path and too many lines', async () => {
    await expect(runSkill(skill, { path: 'app.log' })).rejects.toThrow('must be an absolute path')
    await expect(runSkill(skill, { path: join(root, 'app.log'), lines: 5001 })).rejects.toThrow()
  })

  it('is unavailable without roots', () => {
    expect(tailFile([]).unavailable!()).toBe('the edge was started without --allow-read, so it reads no files')
    expect(skill.unavailable!()).toBeNull()
  })
})
