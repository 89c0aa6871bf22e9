import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../test-support/databases.js'
import { writeTarGz, writeZip, type Member } from '../test-support/archives.js'
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS } from './index.js'
import { extractArchive, type ArchiveLimits } from './extract-archive.js'

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

const formats = [
  { name: 'zip', write: async (file: string, members: Member[]) => writeZip(file, members) },
  { name: 'tar.gz', write: writeTarGz },
] as const

/** Write the members as an archive of the format, extract it, and return what happened. */
async function extract(format: (typeof formats)[number], members: Member[], limits?: Partial<ArchiveLimits>) {
  const dir = tempDir('skillplane-archive-')
  const file = join(dir, `bundle.${format.name}`)
  writeFileSync(join(dir, 'outside.txt'), 'not for the bundle')
  await format.write(file, members)
  const dest = join(dir, 'out')
  try {
    return { ok: true as const, report: await extractArchive(file, dest, limits), dest, file }
  } catch (error) {
    return { ok: false as const, error: error as ArchiveError, dest, file }
  }
}

describe.each(formats)('extracting a $name bundle', (format) => {
  it('writes files, folders, executables and in-bundle symlinks, with the sha256 of each file and of the archive', async () => {
    const result = await extract(format, [
      { name: 'skills/', type: 'directory' },
      { name: 'skills/pdf/SKILL.md', content: '---\nname: pdf\n---\n' },
      { name: 'skills/pdf/scripts/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
      { name: './skills/pdf/docs/guide.md', content: 'guide' },
      { name: 'skills/pdf/guide.md', type: 'symlink', target: 'docs/guide.md' },
    ])
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const { report, dest, file } = result
    expect(report.format).toBe(format.name)
    expect(report.sha256).toBe(sha256(readFileSync(file)))
    expect(report.files).toEqual([
      { path: 'skills/pdf/SKILL.md', size: 18, sha256: sha256('---\nname: pdf\n---\n') },
      { path: 'skills/pdf/scripts/run.sh', size: 18, sha256: sha256('#!/bin/sh\necho hi\n') },
      { path: 'skills/pdf/docs/guide.md', size: 5, sha256: sha256('guide') },
    ])
    expect(report.links).toEqual([{ path: 'skills/pdf/guide.md', target: 'docs/guide.md' }])
    expect(readlinkSync(join(dest, 'skills/pdf/guide.md'))).toBe('docs/guide.md')
    expect(readFileSync(join(dest, 'skills/pdf/guide.md'), 'utf8')).toBe('guide')
    expect(statSync(join(dest, 'skills/pdf/scripts/run.sh')).mode & 0o777).toBe(0o755)
    expect(statSync(join(dest, 'skills/pdf/SKILL.md')).mode & 0o777).toBe(0o644)
  })

  // Unique to this run, so the check that nothing was written there can't be fooled by an older file.
  const absolute = join(tmpdir(), `skillplane-absolute-${process.pid}-${format.name.replace('.', '')}`)
  const refusals: Array<[string, Member[], string, string]> = [
    ['zip slip', [{ name: 'ok.md' }, { name: '../x', content: 'escaped' }], '../x', '".." leads out of the bundle'],
    ['a deeper slip', [{ name: 'a/../../x', content: 'escaped' }], 'a/../../x', '".." leads out of the bundle'],
    ['an absolute path', [{ name: absolute, content: 'escaped' }], absolute, 'an absolute path'],
    ['a symlink out', [{ name: 'link', type: 'symlink', target: '../../etc/passwd' }], 'link', 'a symlink that leads out of the bundle (to ../../etc/passwd)'],
    ['an absolute symlink', [{ name: 'link', type: 'symlink', target: '/etc/passwd' }], 'link', 'a symlink to an absolute path (/etc/passwd)'],
    [
      // Written, each link stays in; followed, `up` is the root and `sneak` then climbs out of it.
      'a symlink out through another symlink',
      [
        { name: 'x/y/', type: 'directory' },
        { name: 'x/y/up', type: 'symlink', target: '../..' },
        { name: 'sneak', type: 'symlink', target: 'x/y/up/../outside.txt' },
      ],
      'sneak',
      'a symlink that resolves outside the bundle (to x/y/up/../outside.txt)',
    ],
    [
      'a symlink to nothing',
      [{ name: 'link', type: 'symlink', target: 'missing.md' }],
      'link',
      'a symlink that points at nothing in the bundle (missing.md: ENOENT)',
    ],
    [
      'a file written through a symlink',
      [
        { name: 'dir', type: 'symlink', target: 'real' },
        { name: 'real/', type: 'directory' },
        { name: 'dir/evil.sh', content: 'x' },
      ],
      'dir/evil.sh',
      'it lies under the symlink dir',
    ],
    ['a path twice', [{ name: 'a.md' }, { name: './a.md' }], './a.md', 'the same path appears twice'],
    ['a fifo', [{ name: 'pipe', type: 'fifo' }], 'pipe', 'a fifo'],
    ['a device file', [{ name: 'tty', type: 'character-device' }], 'tty', 'a character device file'],
  ]
  it.each(refusals)('refuses %s, naming the entry, and leaves nothing behind', async (_what, members, entry, reason) => {
    const result = await extract(format, members)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error).toBeInstanceOf(ArchiveError)
    expect({ entry: result.error.entry, reason: result.error.reason }).toEqual({ entry, reason })
    expect(result.error.message).toBe(`archive entry "${entry}" refused: ${reason}`)
    expect(existsSync(result.dest)).toBe(false)
    expect(existsSync(join(result.dest, '..', 'x'))).toBe(false)
    expect(existsSync(absolute)).toBe(false)
  })

  it('refuses files, totals and counts past the limits', async () => {
    const big = await extract(
      format,
      [
        { name: 'a.md', content: 'x'.repeat(10) },
        { name: 'big.bin', content: 'x'.repeat(101) },
      ],
      { maxFileBytes: 100 },
    )
    expect(!big.ok && big.error.message).toBe('archive entry "big.bin" refused: larger than the limit of 100 bytes a file')
    const total = await extract(
      format,
      [1, 2, 3].map((i) => ({ name: `f${i}.md`, content: 'x'.repeat(40) })),
      { maxTotalBytes: 100 },
    )
    expect(!total.ok && total.error.message).toBe('archive entry "f3.md" refused: the files add up to more than the limit of 100 bytes')
    const many = await extract(
      format,
      [1, 2, 3, 4].map((i) => ({ name: `f${i}.md`, content: 'x' })),
      { maxFiles: 3 },
    )
    expect(!many.ok && many.error.message).toBe('archive entry "f4.md" refused: more than the limit of 3 files')
  })
})

describe('archive limits', () => {
  it('are 25 MiB a file, 100 MiB in all and 10,000 files by default, and say so', async () => {
    expect(DEFAULT_ARCHIVE_LIMITS).toEqual({ maxFileBytes: 25 * 1024 * 1024, maxTotalBytes: 100 * 1024 * 1024, maxFiles: 10_000 })
    const dir = tempDir('skillplane-archive-')
    // Zeros compress to almost nothing: a small tar.gz that unpacks past the default per-file limit.
    await writeTarGz(join(dir, 'big.tar.gz'), [{ name: 'huge.bin', content: Buffer.alloc(25 * 1024 * 1024 + 1) }])
    await expect(extractArchive(join(dir, 'big.tar.gz'), join(dir, 'out'))).rejects.toThrow(
      'archive entry "huge.bin" refused: larger than the limit of 25 MiB a file',
    )
    await writeTarGz(
      join(dir, 'many.tar.gz'),
      Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}` })),
    )
    await expect(extractArchive(join(dir, 'many.tar.gz'), join(dir, 'out2'))).rejects.toThrow(
      'archive entry "f10000" refused: more than the limit of 10,000 files',
    )
  })

  it('refuses what is neither zip nor tar.gz, and a corrupt archive, as a whole', async () => {
    const dir = tempDir('skillplane-archive-')
    writeFileSync(join(dir, 'plain.zip'), 'hello, not an archive')
    await expect(extractArchive(join(dir, 'plain.zip'), join(dir, 'a'))).rejects.toThrow('archive refused: it is neither a zip nor a gzip-compressed tar')
    writeFileSync(join(dir, 'cut.tar.gz'), Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]))
    const error = await extractArchive(join(dir, 'cut.tar.gz'), join(dir, 'b')).catch((e: unknown) => e as ArchiveError)
    expect(error).toBeInstanceOf(ArchiveError)
    expect((error as ArchiveError).entry).toBeNull()
    expect((error as ArchiveError).message).toMatch(/^archive refused: not a readable tar\.gz: /)
  })
})
