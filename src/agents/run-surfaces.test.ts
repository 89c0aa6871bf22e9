import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../test-support/databases.js'
import { startFakeProvider, type FakeProvider } from '../test-support/fake-provider.js'
import { createSkillplane, type Skillplane } from './index.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/start-http-server.js'
import { silentLogger, testAgents } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'

const ROOT = join(import.meta.dirname, '../..')
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const CONFIG = join(ROOT, 'src/test-support/agents.config.ts')

describe('agent runs over HTTP and the CLI', () => {
  let fake: FakeProvider
  let plane: Skillplane
  let server: HttpServer
  beforeAll(async () => {
    fake = await startFakeProvider()
    process.env.SKILLPLANE_TEST_PROVIDER_KEY = 'sk-fake'
    plane = await createSkillplane({
      config: {
        skills: [
          defineSkill({
            key: 'echo',
            description: 'Echo',
            class: 'safe',
            agents: ['Helper'],
            input: { type: 'object', properties: { message: { type: 'string' } } },
            run: (i) => i,
          }),
        ],
        agents: [
          { ...testAgents![0]!, model: { provider: 'openai-compatible', model: 'fake-model', baseURL: fake.url, apiKeyEnv: 'SKILLPLANE_TEST_PROVIDER_KEY' } },
          testAgents![1]!,
        ],
      },
      dataDir: tempDir(),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await server.close()
    await plane.close()
    await fake.close()
    delete process.env.SKILLPLANE_TEST_PROVIDER_KEY
  })

  it('starts, lists and shows runs and test runs over HTTP, for the keys that may', async () => {
    const key = async (role: 'admin' | 'viewer' | 'agent', agentId?: string) =>
      (await plane.people.keys.create({ name: `${role}-${agentId ?? 'x'}`, role, agentId }, plane.now())).key
    const [adminKey, viewerKey, otherAgentKey] = await Promise.all([key('admin'), key('viewer'), key('agent', 'other')])
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    const started = await call('POST', '/api/agents/helper/runs', adminKey, { prompt: 'please use echo' })
    expect(started).toMatchObject({
      status: 201,
      body: {
        status: 'completed',
        output: 'done',
        steps: [
          { kind: 'model', stepNumber: 1, status: 'ok' },
          { tool: 'echo', status: 'ok', callId: expect.any(String) },
          { kind: 'model', stepNumber: 2, status: 'ok' },
          { text: 'done' },
        ],
      },
    })
    expect((await call('GET', '/api/agents/Helper/runs', adminKey)).body.items.map((r: { id: string }) => r.id)).toEqual([started.body.id])
    expect(await call('GET', `/api/runs/${started.body.id}`, adminKey)).toMatchObject({ status: 200, body: { id: started.body.id, steps: expect.any(Array) } })
    // Runs hold prompts and tool results: a viewer reads them no more than the audit log.
    const viewerRefused = { status: 403, body: { error: { code: 'denied', message: 'reading runs needs the operator role or higher' } } }
    expect(await call('GET', '/api/agents/Helper/runs', viewerKey)).toMatchObject(viewerRefused)
    expect(await call('GET', `/api/runs/${started.body.id}`, viewerKey)).toMatchObject(viewerRefused)

    expect(await call('POST', '/api/agents/helper/runs', viewerKey, { prompt: 'x' })).toMatchObject({ status: 403 })
    expect(await call('GET', `/api/runs/${started.body.id}`, otherAgentKey)).toMatchObject({ status: 404 })
    expect(await call('POST', '/api/agents/helper/runs', adminKey, { prompt: '' })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('prompt') } },
    })
    // The server's own setup, not the caller's input: 503, as for any skill that can't run.
    expect(await call('POST', '/api/agents/other/runs', adminKey, { prompt: 'x' })).toMatchObject({
      status: 503,
      body: { error: { code: 'unavailable', message: 'agent "Other" has no model: set agents[].model in the config ({ provider, model })' } },
    })

    const tested = await call('POST', '/api/agents/helper/test-runs', adminKey, { input: 'use echo now', expectTool: 'echo', set: { maxSteps: '3' } })
    expect(tested).toMatchObject({ status: 200, body: { verdict: 'pass', tools: [{ name: 'echo', called: true, ok: true }] } })
    expect(await call('POST', '/api/agents/helper/test-runs', adminKey, { input: 'x', set: { colour: 'red' } })).toMatchObject({ status: 400 })
  })

  it('runs, shows and test-runs agents from the CLI, with clear errors', async () => {
    const data = tempDir('skillplane-run-cli-')
    // Asynchronous: the fake provider answers from this process's event loop.
    const cli = (...args: string[]) => run(args, { SKILLPLANE_TEST_PROVIDER_URL: fake.url, SKILLPLANE_TEST_PROVIDER_KEY: 'sk-fake' })
    const run = (args: string[], env: Record<string, string>) =>
      new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [MAIN, '--config', CONFIG, '--data-dir', data, ...args],
          { cwd: ROOT, env: { ...process.env, ...env } },
          (error, stdout, stderr) => resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        )
      })
    const ran = await cli('run', '--agent', 'helper', 'please use echo', '--json')
    expect(ran.status).toBe(0)
    const done = JSON.parse(ran.stdout)
    expect(done).toMatchObject({ status: 'completed', output: 'done' })
    expect((await cli('runs', 'show', done.id)).stdout).toContain(`run ${done.id} (helper): completed`)
    expect((await cli('runs', 'list', '--json')).stdout).toContain(done.id)

    const incomplete = await cli('test-run', '--agent', 'helper', '--input', 'just say hello', '--expect-tool', 'echo', '--set', 'systemPrompt=Be brief.')
    expect(incomplete.status).toBe(1)
    expect(JSON.parse(incomplete.stdout)).toMatchObject({ verdict: 'incomplete', output: 'hello from the fake' })

    const keyless = await run(['run', '--agent', 'helper', 'hi'], { SKILLPLANE_TEST_PROVIDER_URL: fake.url, SKILLPLANE_TEST_PROVIDER_KEY: '' })
    expect(keyless.status).toBe(1)
    expect(keyless.stderr).toContain('the environment variable SKILLPLANE_TEST_PROVIDER_KEY holding the openai-compatible API key is not set')
    // A setting a test run can't change is named first: fixing the key would not help that run.
    const refusedSet = await run(['test-run', '--agent', 'helper', '--input', 'x', '--set', 'model.baseURL=http://example.com/v1'], {
      SKILLPLANE_TEST_PROVIDER_URL: fake.url,
      SKILLPLANE_TEST_PROVIDER_KEY: '',
    })
    expect(refusedSet.status).toBe(1)
    expect(refusedSet.stderr).toContain('--set model.baseURL: not a setting a test run can change')
  })
})
