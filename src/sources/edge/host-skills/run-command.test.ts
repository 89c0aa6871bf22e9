import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir, waitFor } from '../../../test-support/databases.js'
import { runSkill } from '../../../test-support/run-skill.js'
import { COMMAND_OUTPUT_CAP, runCommand } from './run-command.js'

/** Whether a process still runs (a zombie waiting for its reaper counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

afterEach(() => {
  delete process.env.SKILLPLANE_TEST_SECRET
})

describe('run_command', () => {
  it('is a dangerous host skill', () => {
    expect(runCommand).toMatchObject({ key: 'run_command', class: 'dangerous', scope: 'host', category: 'host' })
  })

  it('returns exit code, stdout and stderr; a non-zero exit is a result', async () => {
    expect(await runSkill(runCommand, { command: 'echo out; echo err >&2' })).toEqual({
      exitCode: 0,
      timedOut: false,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
    })
    expect(await runSkill(runCommand, { command: 'echo failing >&2; exit 3' })).toMatchObject({ exitCode: 3, stderr: 'failing\n' })
    expect(await runSkill(runCommand, { command: 'no-such-command-here' })).toMatchObject({ exitCode: 127 })
  })

  it('runs in cwd with only PATH in its environment', async () => {
    const dir = tempDir()
    expect((await runSkill(runCommand, { command: 'pwd', cwd: dir })).stdout).toBe(`${realpathSync(dir)}\n`)
    expect((await runSkill(runCommand, { command: 'pwd' })).stdout).toBe('/\n')
    process.env.SKILLPLANE_TEST_SECRET = 'hunter2'
    const { stdout } = await runSkill(runCommand, { command: 'echo "[$SKILLPLANE_TEST_SECRET][$HOME]"; echo "$PATH"' })
    expect(stdout).toBe(`[][]\n${process.env.PATH}\n`)
    await expect(runSkill(runCommand, { command: 'pwd', cwd: join(dir, 'missing') })).rejects.toThrow(
      `cwd ${join(dir, 'missing')} is not a folder on this host`,
    )
    await expect(runSkill(runCommand, { command: 'pwd', cwd: 'relative' })).rejects.toThrow('must be an absolute path')
  })

  it('cuts output to 64 KiB without failing, and says so', async () => {
    const result = await runSkill(runCommand, { command: 'yes | head -c 1000000; yes err | head -c 100 >&2; exit 4' })
    expect(result).toMatchObject({ exitCode: 4, truncated: true, stderr: 'err\n'.repeat(25) })
    expect(result.stdout).toBe('y\n'.repeat(COMMAND_OUTPUT_CAP / 2))
  })

  it('kills a command that runs past timeoutMs and returns what it wrote', async () => {
    const result = await runSkill(runCommand, { command: 'echo started; sleep 30', timeoutMs: 300 })
    expect(result).toEqual({ exitCode: 137, signal: 'SIGKILL', timedOut: true, stdout: 'started\n', stderr: '', truncated: false })
  })

  it('kills the whole process group when the call is aborted', async () => {
    const pidFile = join(tempDir(), 'pid')
    const controller = new AbortController()
    const call = runSkill(runCommand, { command: `sleep 30 & echo $! > ${pidFile}; wait`, timeoutMs: 60_000 }, controller.signal)
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'))
    const sleeper = Number(readFileSync(pidFile, 'utf8'))
    expect(running(sleeper)).toBe(true)
    controller.abort(new Error('deadline'))
    await expect(call).rejects.toThrow('deadline')
    await waitFor(() => !running(sleeper), 2000)
  })

  it('finishes when the shell exits, even with a background child holding its output', async () => {
    // The child outlives the test timeout (60 s): waiting for its output to close would fail the test.
    expect(await runSkill(runCommand, { command: 'sleep 90 & echo done' })).toMatchObject({ exitCode: 0, stdout: 'done\n' })
  })

  it('refuses commands over 8 KiB', async () => {
    await expect(runSkill(runCommand, { command: 'x'.repeat(8193) })).rejects.toThrow()
    await expect(runSkill(runCommand, { command: '' })).rejects.toThrow()
  })
})
