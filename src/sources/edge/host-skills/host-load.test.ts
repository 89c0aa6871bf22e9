import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'
import { describe, expect, it } from 'vitest'
import { runSkill } from '../../../test-support/run-skill.js'
import { hostLoad } from './host-load.js'

describe('host_load', () => {
  it("reports this machine's load, memory, uptime and disks", async () => {
    const result = await runSkill(hostLoad, {})
    expect(result.loadAverage).toHaveLength(3)
    for (const load of result.loadAverage) expect(load).toBeGreaterThanOrEqual(0)
    expect(result.cpus).toBe(cpus().length)
    expect(result.memory.totalBytes).toBeGreaterThan(result.memory.freeBytes)
    expect(result.memory.freeBytes).toBeGreaterThan(0)
    expect(result.memory.usedPercent).toBeGreaterThan(0)
    expect(result.memory.usedPercent).toBeLessThan(100)
    expect(result.uptimeSeconds).toBeGreaterThan(0)
  })

  it('lists the root filesystem with the sizes df reports, and no pseudo or in-memory ones', async () => {
    const { disks } = await runSkill(hostLoad, {})
    const root = disks.find((disk: { mount: string }) => disk.mount === '/')
    const [size, avail] = execFileSync('df', ['-B1', '--output=size,avail', '/'], { encoding: 'utf8' }).trim().split('\n')[1]!.trim().split(/\s+/).map(Number)
    expect(root.totalBytes).toBe(size)
    // Other tests write files meanwhile: free space agrees to within 1 GiB.
    expect(Math.abs(root.freeBytes - avail!)).toBeLessThan(2 ** 30)
    expect(root.usedPercent).toBeGreaterThan(0)
    expect(root.usedPercent).toBeLessThanOrEqual(100)
    const mounts = disks.map((disk: { mount: string }) => disk.mount)
    for (const pseudo of ['/proc', '/sys', '/dev', '/dev/shm', '/dev/pts', '/sys/fs/cgroup']) expect(mounts).not.toContain(pseudo)
    expect(new Set(mounts).size).toBe(mounts.length)
  })

  it('stops when the call is aborted', async () => {
    const controller = new AbortController()
    controller.abort(new Error('deadline'))
    await expect(runSkill(hostLoad, {}, controller.signal)).rejects.toThrow('deadline')
  })
})
