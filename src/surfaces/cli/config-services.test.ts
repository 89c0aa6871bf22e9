import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir, waitFor } from '../../test-support/databases.js'
import { CLI_MAIN, runCli } from '../../test-support/run-cli.js'

/**
 * A config whose every start leaves a mark in `dir`: its services write `<name>-started` (and
 * `<name>-stopped` when stopped), its MCP server `mcp-started` when spawned; its SKILL.md folder
 * holds a skill whose name is not its folder's, which loading it warns about. `failing` services throw.
 */
function markingConfig(services: string[], failing: string[] = []): { config: string; dir: string; mark(name: string): boolean } {
  const dir = tempDir('skillplane-services-')
  mkdirSync(join(dir, 'skills', 'wrong-name'), { recursive: true })
  writeFileSync(join(dir, 'skills', 'wrong-name', 'SKILL.md'), '---\nname: other-name\ndescription: Named unlike its folder\n---\nBody\n')
  const config = join(dir, 'skillplane.config.mjs')
  writeFileSync(
    config,
    `import { writeFileSync } from 'node:fs'
const dir = ${JSON.stringify(dir)}
const service = (name) => ({ name, start: () => { writeFileSync(dir + '/' + name + '-started', ''); return () => writeFileSync(dir + '/' + name + '-stopped', '') } })
export default {
  skillDirs: [dir + '/skills'],
  mcpServers: [{ name: 'probe', command: process.execPath, args: ['-e', "require('node:fs').writeFileSync(" + JSON.stringify(dir + '/mcp-started') + ", '')"] }],
  services: [...${JSON.stringify(services)}.map(service), ...${JSON.stringify(failing)}.map((name) => ({ name, start: async () => { throw new Error('boom') } }))],
}
`,
  )
  return { config, dir, mark: (name) => existsSync(join(dir, name)) }
}

const held: Server[] = []
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** `serve` with this config: resolves with its stdout once it printed the admin key, or with its exit. */
function serve(config: string, dataDir: string, port = 0) {
  const child = spawn(process.execPath, [CLI_MAIN, '--data-dir', dataDir, '--config', config, 'serve', '--port', String(port)], {
    env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

describe('config services and store-only commands', () => {
  it('a store-only command starts no service, source or MCP server; a listing loads the sources and starts none', () => {
    const { config, mark } = markingConfig(['depot'])
    const location = { dataDir: tempDir() }
    const created = runCli(location, ['keys', 'create', '--name', 'me', '--role', 'admin'], { config })
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/^created admin key "me"/)
    // No SKILL.md was read (its warning is missing), no service or MCP server started.
    expect(created.stderr).toBe('')
    expect(mark('depot-started')).toBe(false)
    expect(mark('mcp-started')).toBe(false)
    for (const args of [
      ['approvals', 'list'],
      ['edges', 'enroll', '--name', 'web-1'],
    ]) {
      const run = runCli(location, args, { config })
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' })
    }

    const listed = runCli(location, ['skills', 'list', '--json'], { config })
    expect(listed.code).toBe(0)
    expect(listed.json().map((s: { key: string }) => s.key)).toContain('other-name')
    expect(listed.stderr).toContain('instruction skill: name \\"other-name\\" must equal its folder\'s name \\"wrong-name\\"')
    expect(mark('depot-started')).toBe(false)
    expect(mark('mcp-started')).toBe(false)
  })

  it('serve starts the services before the sources and stops them when it stops', async () => {
    const { config, mark } = markingConfig(['depot', 'queue'])
    const server = serve(config, tempDir())
    await waitFor(() => /^try: /m.test(server.stdout()) || server.child.exitCode !== null)
    expect(server.stdout()).toMatch(/^skillplane \d+ skills on sqlite/m)
    expect([mark('depot-started'), mark('queue-started'), mark('mcp-started')]).toEqual([true, true, true])
    expect([mark('depot-stopped'), mark('queue-stopped')]).toEqual([false, false])
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    expect([mark('depot-stopped'), mark('queue-stopped')]).toEqual([true, true])
  })

  it('refuses a port in use before any service, source or store starts, naming the port', async () => {
    const { config, mark } = markingConfig(['depot'])
    const taken = createServer()
    held.push(taken)
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as { port: number }).port
    const dataDir = join(tempDir(), 'data')
    const server = serve(config, dataDir, port)
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toBe(`skillplane: port ${port} on 127.0.0.1 is in use (another skillplane serve?): stop that process or pick another with --port\n`)
    expect(server.stdout()).toBe('')
    expect(mark('depot-started')).toBe(false)
    expect(mark('mcp-started')).toBe(false)
    expect(existsSync(dataDir)).toBe(false)
  })

  it('a service that fails to start stops the ones before it and fails the start, naming it', async () => {
    const { config, mark } = markingConfig(['depot'], ['broken'])
    const server = serve(config, tempDir())
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toContain('skillplane: config service "broken" failed to start: boom\n')
    expect([mark('depot-started'), mark('depot-stopped'), mark('mcp-started')]).toEqual([true, true, false])
  })
})
