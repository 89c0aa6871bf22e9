import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { tree } from '../../../test-support/databases.js'
import { runSkill } from '../../../test-support/run-skill.js'
import { hostProcesses } from './host-processes.js'

const path = process.env.PATH
afterEach(() => {
  process.env.PATH = path
})

describe('host_processes', () => {
  it("lists this machine's processes by CPU, busiest first", async () => {
    const { processes } = await runSkill(hostProcesses, {})
    expect(processes.length).toBeGreaterThan(0)
    expect(processes.length).toBeLessThanOrEqual(10)
    for (const row of processes) {
      expect(row.pid).toBeGreaterThan(0)
      expect(row.command).not.toBe('')
      expect(row.cpuPercent).toBeGreaterThanOrEqual(0)
      expect(row.memoryPercent).toBeGreaterThanOrEqual(0)
      expect(row.memoryPercent).toBeLessThanOrEqual(100)
    }
    const cpu = processes.map((row: { cpuPercent: number }) => row.cpuPercent)
    expect(cpu).toEqual([...cpu].sort((a, b) => b - a))
  })

  it('sorts by memory and finds a process by its pid, name, user and size', async () => {
    // A process of known size: node holding 200 MiB it has touched.
    const hog = spawn(process.execPath, ['-e', 'const b = Buffer.alloc(200 * 1024 * 1024, 1); console.log("ready"); setInterval(() => b[0]++, 1000)'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      await new Promise((done) => hog.stdout.once('data', done))
      const { processes } = await runSkill(hostProcesses, { sortBy: 'memory', limit: 100 })
      const rss = processes.map((row: { rssBytes: number }) => row.rssBytes)
      expect(rss).toEqual([...rss].sort((a, b) => b - a))
      const row = processes.find((entry: { pid: number }) => entry.pid === hog.pid)
      expect(row).toMatchObject({ command: 'node', user: expect.any(String) })
      expect(row.rssBytes).toBeGreaterThan(200 * 1024 * 1024)
      expect(row.memoryPercent).toBeGreaterThan(0)
    } finally {
      hog.kill('SIGKILL')
    }
  })

  it('keeps command names with spaces whole', async () => {
    // A stand-in ps printing what procps prints for such a process.
    const fake = tree({ ps: "#!/bin/sh\necho '  42  3.5  1.2  2048 www-data                         Web Content'\n" }, ['ps'])
    process.env.PATH = fake
    expect(await runSkill(hostProcesses, {})).toEqual({
      processes: [{ pid: 42, command: 'Web Content', cpuPercent: 3.5, memoryPercent: 1.2, rssBytes: 2048 * 1024, user: 'www-data' }],
    })
  })

  it('is unavailable without ps, and refuses a limit past 100', async () => {
    process.env.PATH = ''
    expect(hostProcesses.unavailable!()).toBe("ps is not on this host's PATH, so its processes can't be listed")
    process.env.PATH = path
    expect(hostProcesses.unavailable!()).toBeNull()
    await expect(runSkill(hostProcesses, { limit: 101 })).rejects.toThrow()
  })
})
