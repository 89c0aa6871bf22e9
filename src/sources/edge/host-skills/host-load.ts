import { readFile, stat, statfs } from 'node:fs/promises'
import { cpus, freemem, loadavg, totalmem, uptime } from 'node:os'
import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'

// Local filesystems without a /dev device of their own (a container's root, ZFS datasets).
const DEVICELESS = new Set(['overlay', 'zfs'])
// Read-only images (snaps) are always full: noise, not a disk to watch.
const IMAGES = new Set(['squashfs', 'iso9660'])

const input = z.object({})

const disk = z.object({
  mount: z.string(),
  totalBytes: z.number(),
  freeBytes: z.number().describe('Space an unprivileged process may still use.'),
  usedPercent: z.number().describe('As df reports it: used / (used + free), reserved blocks aside.'),
})

const output = z.object({
  loadAverage: z.array(z.number()).length(3).describe('Run-queue averages over 1, 5 and 15 minutes.'),
  cpus: z.number().int(),
  memory: z.object({
    totalBytes: z.number(),
    freeBytes: z.number().describe('Memory available to new work (MemAvailable on Linux).'),
    usedPercent: z.number(),
  }),
  uptimeSeconds: z.number().int(),
  disks: z.array(disk).describe('Local filesystems (no pseudo, network or in-memory ones).'),
})

export const hostLoad = defineSkill({
  key: 'host_load',
  title: 'Host load',
  description: "This host's load averages, CPU count, memory use, uptime and the space on its local filesystems: a first look at a host's health.",
  class: 'safe',
  scope: 'host',
  category: 'host',
  tags: ['health', 'cpu', 'memory', 'disk'],
  timeoutMs: 15_000,
  input,
  output,
  run: async (_args, ctx) => {
    const total = totalmem()
    const free = freemem()
    const disks = await Promise.all((await localMounts()).map((mount) => untilAborted(usage(mount), ctx.signal)))
    return {
      loadAverage: loadavg().map((load) => round(load, 2)),
      cpus: cpus().length,
      memory: { totalBytes: total, freeBytes: free, usedPercent: round(((total - free) / total) * 100, 1) },
      uptimeSeconds: Math.round(uptime()),
      disks: disks.filter((entry) => entry !== null),
    }
  },
})

/**
 * Mount points of local filesystems from /proc/mounts (just "/" where there is none): backed by a
 * block device or known to be local, once per device, directories only (a container's
 * bind-mounted /etc/hosts is not a disk). Network filesystems are left out: a dead server would
 * hang statfs.
 */
async function localMounts(): Promise<string[]> {
  let table: string
  try {
    table = await readFile('/proc/mounts', 'utf8')
  } catch {
    return ['/']
  }
  const devices = new Set<string>()
  const mounts: string[] = []
  for (const line of table.split('\n')) {
    const [device, escaped, type] = line.split(' ')
    if (!device || !escaped || !type || devices.has(device) || IMAGES.has(type)) continue
    const local = (device.startsWith('/') && !device.startsWith('//')) || DEVICELESS.has(type)
    if (!local) continue
    // The kernel writes space, tab, newline and backslash in octal.
    const mount = escaped.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))
    const isDirectory = await stat(mount).then(
      (s) => s.isDirectory(),
      () => false,
    )
    if (!isDirectory) continue
    devices.add(device)
    mounts.push(mount)
  }
  return mounts
}

async function usage(mount: string): Promise<z.infer<typeof disk> | null> {
  try {
    const fs = await statfs(mount)
    const used = (fs.blocks - fs.bfree) * fs.bsize
    const free = fs.bavail * fs.bsize
    return { mount, totalBytes: fs.blocks * fs.bsize, freeBytes: free, usedPercent: used + free === 0 ? 0 : round((used / (used + free)) * 100, 1) }
  } catch {
    // Unmounted since the table was read, or not ours to look at.
    return null
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted()
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}
