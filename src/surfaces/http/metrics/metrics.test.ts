import { afterEach, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../../../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, openTestPlane, testAgents } from '../../../test-support/fixtures.js'
import { callsTool, says, scripted } from '../../../test-support/mock-model.js'
import type { Skillplane } from '../../../agents/index.js'
import type { SkillplaneConfig } from '../../../config/index.js'
import { startHttpServer, type HttpServer } from '../start-http-server.js'

const opened: { plane: Skillplane; server: HttpServer }[] = []
afterEach(async () => {
  for (const { plane, server } of opened.splice(0)) {
    await server.close()
    await plane.close()
  }
})

async function start(database: (typeof databases)[number], config: SkillplaneConfig = {}) {
  const plane = await openTestPlane(database, config)
  const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  opened.push({ plane, server })
  const keyFor = async (role: 'admin' | 'operator') => (await plane.people.keys.create({ name: `${role}-${Math.random()}`, role }, plane.now())).key
  return { plane, server, keyFor }
}

async function scrape(url: string, key?: string) {
  const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} })
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() }
}

/** The value of one series of the exposition text, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe.each(databases)('/metrics on $name', (database) => {
  it('counts calls by skill and status, times them, and reads the gauges at scrape time', async () => {
    const { plane, server, keyFor } = await start(database)
    const key = await keyFor('admin')
    await plane.invoke('echo', { message: 'a' }, { caller: admin })
    await plane.invoke('echo', { message: 'b' }, { caller: admin })
    await plane.invoke('echo', { message: '' }, { caller: admin })
    const approval = approvalIdOf(await plane.invoke('write_thing', { value: 'v' }, { caller: agentCaller('helper') }))
    // A name no skill has is not a label of its own, so callers can't mint series.
    await plane.invoke('no_such_skill_x1', {}, { caller: admin })
    // An open /mcp session counts as one.
    const initialized = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'm', version: '1' } },
      }),
    })
    expect(initialized.headers.get('mcp-session-id')).toBeTruthy()
    await initialized.body?.cancel()

    const { status, type, text } = await scrape(`${server.url}/metrics`, key)
    expect(status).toBe(200)
    expect(type).toContain('text/plain; version=0.0.4')
    expect(sample(text, 'skillplane_calls_total{skill="echo",status="ok"}')).toBe(2)
    expect(sample(text, 'skillplane_calls_total{skill="echo",status="error"}')).toBe(1)
    expect(sample(text, 'skillplane_calls_total{skill="write_thing",status="approval_required"}')).toBe(1)
    expect(sample(text, 'skillplane_calls_total{skill="(unknown)",status="error"}')).toBe(1)
    expect(text).not.toContain('no_such_skill_x1')
    expect(sample(text, 'skillplane_call_duration_seconds_count{skill="echo"}')).toBe(3)
    expect(sample(text, 'skillplane_call_duration_seconds_bucket{le="+Inf",skill="echo"}')).toBe(3)
    expect(sample(text, 'skillplane_approvals_pending{skill="write_thing"}')).toBe(1)
    expect(text).not.toContain('skillplane_approval_wait_seconds_count')
    expect(sample(text, 'skillplane_audit_queue_depth')).toBe(0)
    expect(sample(text, 'skillplane_audit_backlog')).toBe(0)
    expect(sample(text, 'skillplane_mcp_sessions')).toBe(1)
    expect(sample(text, 'skillplane_mcp_servers_connected')).toBe(0)
    expect(sample(text, 'skillplane_edges_online')).toBe(0)
    // Present and a count; the kernel accounts CPU time in ticks, so a scrape right after start may read 0.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0)
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge')

    // Gauges follow the state: the decided request no longer waits, and another call counts on.
    await plane.approvals.decide({ id: approval, caller: admin, decision: 'reject' })
    await plane.invoke('echo', { message: 'c' }, { caller: admin })
    const again = (await scrape(`${server.url}/metrics`, key)).text
    // A skill once pending reads 0 rather than vanishing; the request's wait is observed when decided.
    expect(sample(again, 'skillplane_approvals_pending{skill="write_thing"}')).toBe(0)
    expect(sample(again, 'skillplane_approval_wait_seconds_count{skill="write_thing"}')).toBe(1)
    expect(sample(again, 'skillplane_approval_wait_seconds_bucket{le="+Inf",skill="write_thing"}')).toBe(1)
    expect(sample(again, 'skillplane_approval_wait_seconds_bucket{le="10",skill="write_thing"}')).toBe(1)
    expect(sample(again, 'skillplane_calls_total{skill="echo",status="ok"}')).toBe(3)
  })

  it('counts agent runs by agent and status when they end, with no caller or edge labels', async () => {
    const model = scripted(callsTool('echo', { message: 'a' }), says('done'))
    const { plane, server, keyFor } = await start(database, { agents: [{ ...testAgents![0]!, model }] })
    const run = await plane.runs.start({ agent: 'helper', prompt: 'x', requester: admin })
    await waitFor(async () => (await plane.runs.get(run.id))!.status === 'completed')
    const text = (await scrape(`${server.url}/metrics`, await keyFor('admin'))).text
    const agent = plane.agents.resolve('helper')!
    expect(sample(text, `skillplane_agent_runs_total{agent="${agent}",status="completed"}`)).toBe(1)
    // Two model steps (the tool call, then the answer), each reporting 1 input and 1 output token, none cached.
    expect(sample(text, `skillplane_model_tokens_total{agent="${agent}",model="mock-model-id",kind="input"}`)).toBe(2)
    expect(sample(text, `skillplane_model_tokens_total{agent="${agent}",model="mock-model-id",kind="output"}`)).toBe(2)
    expect(sample(text, `skillplane_model_tokens_total{agent="${agent}",model="mock-model-id",kind="cached_input"}`)).toBe(0)
    expect(text).not.toMatch(/\{[^}]*(caller|edge)=/)
  })

  it('wants an admin key on the main server', async () => {
    const { server, keyFor } = await start(database)
    expect(await scrape(`${server.url}/metrics`)).toMatchObject({ status: 401, text: expect.stringContaining('missing API key') })
    expect(await scrape(`${server.url}/metrics`, 'sp_not-a-key')).toMatchObject({ status: 401 })
    expect(await scrape(`${server.url}/metrics`, await keyFor('operator'))).toMatchObject({
      status: 403,
      text: expect.stringContaining('needs the admin role'),
    })
  })
})

describe('/metrics on its own address', () => {
  it('serves metrics without a key at metrics.listen, and not on the main server', async () => {
    const { plane, server, keyFor } = await start(databases[0]!, { metrics: { listen: '127.0.0.1:0' } })
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    await plane.invoke('echo', { message: 'a' }, { caller: admin })
    const scraped = await scrape(server.metricsUrl!)
    expect(scraped.status).toBe(200)
    expect(sample(scraped.text, 'skillplane_calls_total{skill="echo",status="ok"}')).toBe(1)
    expect(await scrape(`${server.url}/metrics`, await keyFor('admin'))).toMatchObject({ status: 404 })
    expect(await scrape(server.metricsUrl!.replace('/metrics', '/api/skills'))).toMatchObject({ status: 404 })
    // Closing the server closes the metrics address too.
    await server.close()
    await expect(fetch(server.metricsUrl!)).rejects.toThrow()
  })

  it('names metrics.listen when its port is taken', async () => {
    const { server } = await start(databases[0]!, { metrics: { listen: '127.0.0.1:0' } })
    const taken = server.metricsUrl!.replace('http://', '').replace('/metrics', '')
    const plane = await openTestPlane(databases[0]!, { metrics: { listen: taken } })
    try {
      await expect(startHttpServer(plane, { host: '127.0.0.1', port: 0 })).rejects.toThrow(`metrics.listen ${taken} can't be used: listen EADDRINUSE`)
    } finally {
      await plane.close()
    }
  })

  it('is off with metrics.enabled false', async () => {
    const { server, keyFor } = await start(databases[0]!, { metrics: { enabled: false } })
    expect(server.metricsUrl).toBeNull()
    expect(await scrape(`${server.url}/metrics`, await keyFor('admin'))).toMatchObject({ status: 404 })
  })

  it('refuses a listen address that is not host:port, naming the setting', async () => {
    await expect(openTestPlane(databases[0]!, { metrics: { listen: 'localhost' } })).rejects.toThrow(/metrics\.listen.*host:port/s)
    await expect(openTestPlane(databases[0]!, { metrics: { listen: '127.0.0.1:70000' } })).rejects.toThrow(/metrics\.listen.*at most 65535/s)
  })
})
