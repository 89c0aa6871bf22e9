import { execFileSync, spawn } from 'node:child_process'
import { appendFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSkillplane } from '../agents/index.js'
import { processExists } from './index.js'
import { silentLogger } from '../test-support/fixtures.js'
import { tempDir, waitFor } from '../test-support/databases.js'

const GROUPS = join(import.meta.dirname, '../../dist/system/process-groups.js')
const strays: number[] = []
afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
})

/** A process group of its own running `sleep`, as a skill's subprocess would be. */
function sleeper(): number {
  const child = spawn('/bin/sleep', ['30'], { detached: true, stdio: 'ignore' })
  child.unref()
  strays.push(child.pid!)
  return child.pid!
}

describe('process groups of a dead manager', () => {
  it('are killed by the next start on this host, but only while the recorded process is still the one running', async () => {
    const dataDir = tempDir('skillplane-groups-')
    const dir = join(dataDir, 'process-groups')
    const recorded = sleeper()
    // A manager process records a group, then dies without cleaning up.
    const script = `import { ProcessGroups } from ${JSON.stringify(GROUPS)}; new ProcessGroups(${JSON.stringify(dir)}, '01DEADMANAGER').started(${recorded})`
    execFileSync(process.execPath, ['--input-type=module', '-e', script])
    const [file] = readdirSync(dir)
    expect(file).toMatch(/^01DEADMANAGER\.\d+\.groups$/)
    // A pid recorded with another start time stands for a process that is gone: its pid was reused.
    const reused = sleeper()
    appendFileSync(join(dir, file!), `+${reused} 1\n`)
    // A group that ended is not killed either.
    const ended = sleeper()
    appendFileSync(join(dir, file!), `+${ended} 1\n-${ended}\n`)

    const plane = await createSkillplane({ dataDir, logger: silentLogger() })
    try {
      await waitFor(() => !processExists(recorded), 2_000)
      expect({ recorded: processExists(recorded), reused: processExists(reused), ended: processExists(ended) }).toEqual({
        recorded: false,
        reused: true,
        ended: true,
      })
      expect(existsSync(join(dir, file!))).toBe(false)
    } finally {
      await plane.close()
    }
  })

  it('are left alone while their manager lives, and its file goes at a clean shutdown', async () => {
    const dataDir = tempDir('skillplane-groups-')
    const dir = join(dataDir, 'process-groups')
    const first = await createSkillplane({ dataDir, logger: silentLogger() })
    const running = sleeper()
    const { ProcessGroups } = await import('./process-groups.js')
    const groups = new ProcessGroups(dir, first.status.managerId)
    groups.started(running)
    const second = await createSkillplane({ dataDir, logger: silentLogger() })
    await second.close()
    expect(processExists(running)).toBe(true)
    groups.close()
    await first.close()
    expect(readdirSync(dir)).toEqual([])
  })
})
