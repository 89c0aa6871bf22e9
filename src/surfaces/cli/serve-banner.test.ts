import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir, waitFor } from '../../test-support/databases.js'
import { CLI_MAIN, CLI_TEST_CONFIG } from '../../test-support/run-cli.js'

const stops: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()))
})

const EDGE_LINE = /^edge {5}local \(this host\): online, offering (\d+) host skills; host skills take edgeId "local"$/m

/** `serve --edge local` until its local edge's online line is printed; then stopped. */
async function serveWithEdge(dataDir: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_MAIN, '--data-dir', dataDir, '--config', CLI_TEST_CONFIG, 'serve', '--port', '0', '--edge', 'local'], {
    env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  stops.push(() => (child.kill('SIGTERM'), exited))
  await waitFor(() => EDGE_LINE.test(stdout) || child.exitCode !== null)
  if (!EDGE_LINE.test(stdout)) throw new Error(`serve exited: ${stderr}`)
  child.kill('SIGTERM')
  await exited
  return { stdout, stderr }
}

describe('serve --edge', () => {
  it('prints when the local edge is online, and counts the same skills on the first start as on the next', async () => {
    const dataDir = tempDir()
    const first = await serveWithEdge(dataDir)
    // The edge's skills registered during the first start (and stored) do not change the next banner's count.
    const second = await serveWithEdge(dataDir)
    const count = (out: string) => /^skillplane (\d+) skills on sqlite/m.exec(out)?.[1]
    expect(count(first.stdout)).toMatch(/^\d+$/)
    expect(count(second.stdout)).toBe(count(first.stdout))
    expect(Number(EDGE_LINE.exec(first.stdout)![1])).toBeGreaterThan(0)
    expect(second.stdout).toContain('keys exist already')

    // The "edge connected" log line names the edge's host once, beside the logger's own hostname.
    const connected = first.stderr.split('\n').find((line) => line.includes('"msg":"edge connected"'))!
    expect(connected.match(/"hostname":/g)).toHaveLength(1)
    expect(JSON.parse(connected)).toMatchObject({ edge: 'local', host: expect.any(String), skills: expect.any(Number) })
  })
})
