import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'
import { findOnPath, runProcess } from '../../../system/index.js'

// pid, %cpu, %mem, rss (KiB), user, then the command name, which may hold spaces.
const ROW = /^\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\S+)\s(.*)$/

const input = z.object({
  sortBy: z.enum(['cpu', 'memory']).default('cpu'),
  limit: z.number().int().min(1).max(100).default(10),
})

const processRow = z.object({
  pid: z.number().int(),
  command: z.string().describe('The executable name (at most 15 characters on Linux), never its arguments.'),
  cpuPercent: z.number().describe("CPU time over the process's lifetime, as ps reports it (not an instant rate)."),
  memoryPercent: z.number(),
  rssBytes: z.number(),
  user: z.string().optional(),
})

const output = z.object({ processes: z.array(processRow) })

export const hostProcesses = defineSkill({
  key: 'host_processes',
  title: 'Top processes',
  description:
    'The processes on this host using the most CPU or memory, with pid, command name, user, CPU %, memory % and resident size (like ps or top; arguments are not shown).',
  class: 'safe',
  scope: 'host',
  category: 'host',
  tags: ['health', 'processes'],
  timeoutMs: 15_000,
  input,
  output,
  unavailable: () => (ps() ? null : missing),
  run: async (args, ctx) => {
    const file = ps()
    if (!file) throw new Error(missing)
    // Only PATH: the C locale, so decimals come with a dot. comm, not args: arguments can hold secrets.
    const result = await runProcess({
      file,
      args: ['-eo', 'pid,pcpu,pmem,rss,user:32,comm', '--no-headers'],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '' },
      maxOutputBytes: 16 * 1024 * 1024,
      signal: ctx.signal,
    })
    const processes = result.stdout.split('\n').flatMap((line) => {
      const match = ROW.exec(line)
      if (!match) return []
      const [, pid, cpu, memory, rss, user, command] = match
      return [{ pid: Number(pid), command: command!.trim(), cpuPercent: Number(cpu), memoryPercent: Number(memory), rssBytes: Number(rss) * 1024, user: user! }]
    })
    const key = args.sortBy === 'cpu' ? 'cpuPercent' : 'rssBytes'
    processes.sort((a, b) => b[key] - a[key])
    return { processes: processes.slice(0, args.limit) }
  },
})

const missing = "ps is not on this host's PATH, so its processes can't be listed"

function ps(): string | null {
  return findOnPath('ps', process.env.PATH ?? '')
}
