import { constants } from 'node:fs'
import { open, realpath, type FileHandle } from 'node:fs/promises'
import { resolve } from 'node:path'
import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'
import { isInside } from '../../../system/index.js'

/** At most this much of the file's end is read, however many lines are asked for. */
export const TAIL_MAX_BYTES = 1024 * 1024
/** Longer lines are cut to this many characters. */
export const TAIL_MAX_LINE = 4096
const CHUNK = 64 * 1024

const input = z.object({
  path: z
    .string()
    .max(4096)
    .regex(/^\/[^\0]*$/, 'must be an absolute path')
    .describe('Absolute path of the file; it must lie inside one of the folders the edge may read.'),
  lines: z.number().int().min(1).max(5000).default(100).describe('How many lines from the end.'),
})

const output = z.object({
  path: z.string().describe('The file read, with symlinks resolved.'),
  lines: z.array(z.string()),
  truncated: z
    .boolean()
    .describe(`Whether something was left out: fewer lines than asked within the last ${TAIL_MAX_BYTES} bytes, or lines cut to ${TAIL_MAX_LINE} characters.`),
})

/** The last lines of a file inside one of `allowRead` (folders), judged after resolving symlinks. */
export function tailFile(allowRead: readonly string[]) {
  return defineSkill({
    key: 'tail_file',
    title: 'Tail a file',
    description: `Read the last lines of a text file on this host (a log, say), like tail -n. Only files inside the folders the edge was allowed to read: ${
      allowRead.length ? allowRead.join(', ') : 'none'
    }.`,
    class: 'safe',
    scope: 'host',
    category: 'host',
    tags: ['files', 'logs'],
    timeoutMs: 30_000,
    input,
    output,
    unavailable: () => (allowRead.length === 0 ? 'the edge was started without --allow-read, so it reads no files' : null),
    run: async (args, ctx) => {
      const path = await confine(args.path, allowRead)
      // O_NOFOLLOW: a symlink swapped in after the check is refused; O_NONBLOCK: a FIFO can't hang the open.
      const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      try {
        const stat = await handle.stat()
        if (!stat.isFile()) throw new Error(`${path} is not a regular file`)
        return { path, ...(await lastLines(handle, stat.size, args.lines, ctx.signal)) }
      } finally {
        await handle.close()
      }
    },
  })
}

async function confine(path: string, allowRead: readonly string[]): Promise<string> {
  const roots = (await Promise.all(allowRead.map((root) => realpath(root).catch(() => null)))).filter((root): root is string => root !== null)
  const target = await realpath(path).catch((error: NodeJS.ErrnoException) => error)
  if (typeof target === 'string' && roots.some((root) => isInside(root, target))) return target
  // Only a path that would be inside anyway learns whether it exists.
  const lexical = resolve(path)
  if (typeof target !== 'string' && [...allowRead.map((root) => resolve(root)), ...roots].some((root) => isInside(root, lexical))) {
    throw new Error(`can't read ${path}: ${target.code === 'ENOENT' ? 'no such file' : target.code}`)
  }
  throw new Error(`${path} is outside the folders this edge may read (${allowRead.join(', ')}), once symlinks are resolved`)
}

async function lastLines(handle: FileHandle, size: number, wanted: number, signal: AbortSignal): Promise<{ lines: string[]; truncated: boolean }> {
  const limit = Math.max(0, size - TAIL_MAX_BYTES)
  let position = size
  let buffer = Buffer.alloc(0)
  let newlines = 0
  // wanted + 1 newlines bound `wanted` whole lines (the last newline may just end the file).
  while (position > limit && newlines <= wanted) {
    signal.throwIfAborted()
    const length = Math.min(CHUNK, position - limit)
    position -= length
    const chunk = Buffer.alloc(length)
    const { bytesRead } = await handle.read(chunk, 0, length, position)
    const read = chunk.subarray(0, bytesRead)
    for (let i = read.indexOf(10); i !== -1; i = read.indexOf(10, i + 1)) newlines++
    buffer = Buffer.concat([read, buffer])
  }
  const segments = buffer.toString('utf8').split('\n')
  if (segments.at(-1) === '') segments.pop()
  let truncated = false
  if (position > 0) {
    // Read from mid-file, the first segment is the end of a line that began earlier: dropped,
    // unless it is all there is (one line longer than the bytes read).
    if (segments.length > 1) segments.shift()
    else truncated = true
    if (segments.length < wanted) truncated = true
  }
  const lines = segments.slice(-wanted).map((line) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line
    if (text.length <= TAIL_MAX_LINE) return text
    truncated = true
    return text.slice(0, TAIL_MAX_LINE)
  })
  return { lines, truncated }
}
