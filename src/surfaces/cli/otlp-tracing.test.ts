import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir, waitFor } from '../../test-support/databases.js'
import { TEST_TIMEOUT_MS } from '../../test-support/test-timeout.js'

// `skillplane serve` with the standard OTEL_* variables, against a real OTLP/HTTP receiver.
const ROOT = join(import.meta.dirname, '../../..')
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const CONFIG = join(ROOT, 'src/test-support/cli.config.ts')

interface Export {
  contentType: string | undefined
  headers: IncomingHttpHeaders
  body: Buffer
}

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** A collector's OTLP/HTTP traces endpoint: keeps every export it receives. */
async function receiver(): Promise<{ url: string; exports: Export[] }> {
  const exports: Export[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') return response.writeHead(404).end()
      exports.push({ contentType: request.headers['content-type'], headers: request.headers, body: Buffer.concat(chunks) })
      response
        .writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/json' })
        .end(request.headers['content-type']?.includes('json') ? '{}' : '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise((resolve) => server.close(resolve)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports }
}

async function serve(env: NodeJS.ProcessEnv): Promise<{ url: string; key: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--data-dir', tempDir(), '--config', CONFIG], {
    // Spans leave only at shutdown, so the test sees that the last batch is flushed.
    env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn', OTEL_BSP_SCHEDULE_DELAY: '600000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  cleanups.push(() => child.kill('SIGKILL'))
  let out = ''
  let err = ''
  child.stdout!.on('data', (chunk) => (out += chunk))
  child.stderr!.on('data', (chunk) => (err += chunk))
  await waitFor(() => /admin key \(shown once; store it now\): sp_/.test(out) || child.exitCode !== null)
  if (child.exitCode !== null) throw new Error(`serve exited: ${err}`)
  return { url: /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)![1]!, key: /: (sp_\S+)/.exec(out)![1]!, child, stderr: () => err }
}

/** Calls echo over HTTP and answers the trace id its audit row holds. */
async function callEcho(server: { url: string; key: string }): Promise<string> {
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' }
  const invoked = await fetch(`${server.url}/api/skills/echo/invoke`, { method: 'POST', headers, body: JSON.stringify({ input: { message: 'hi' } }) })
  const { callId } = (await invoked.json()) as { callId: string }
  const row = (await (await fetch(`${server.url}/api/audit/${callId}`, { headers })).json()) as { traceId: string | null }
  expect(row.traceId).toMatch(/^[0-9a-f]{32}$/)
  return row.traceId!
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

describe('OTLP traces from skillplane serve', () => {
  it('exports each call as a span over OTLP/HTTP protobuf (the default), flushed on shutdown, with the configured service and headers', async () => {
    const collector = await receiver()
    const server = await serve({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'plane-under-test',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme',
    })
    const traceId = await callEcho(server)
    expect(collector.exports).toEqual([])
    await stop(server.child)

    expect(collector.exports).toHaveLength(1)
    const [sent] = collector.exports
    expect(sent!.contentType).toBe('application/x-protobuf')
    expect(sent!.headers['x-tenant']).toBe('acme')
    // Protobuf carries strings and the 16 trace id bytes as they are.
    expect(sent!.body.includes(Buffer.from(traceId, 'hex'))).toBe(true)
    expect(sent!.body.includes('skill echo')).toBe(true)
    expect(sent!.body.includes('plane-under-test')).toBe(true)
  })

  it('exports over OTLP/HTTP JSON to a traces endpoint when asked: spans named after their skill, in the audited trace', async () => {
    const collector = await receiver()
    const server = await serve({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })
    const first = await callEcho(server)
    const second = await callEcho(server)
    await stop(server.child)

    const spans = collector.exports.flatMap((e) => {
      expect(e.contentType).toBe('application/json')
      const body = JSON.parse(e.body.toString()) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] }
          scopeSpans: { spans: { name: string; traceId: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[]
        }[]
      }
      return body.resourceSpans.flatMap((r) => {
        expect(r.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'skillplane' } })
        return r.scopeSpans.flatMap((s) => s.spans)
      })
    })
    expect(spans.map((s) => [s.name, s.traceId])).toEqual([
      ['skill echo', first],
      ['skill echo', second],
    ])
    expect(spans[0]!.attributes).toContainEqual({ key: 'skillplane.skill', value: { stringValue: 'echo' } })
  })

  it('refuses to start with a protocol it cannot speak, naming it', () => {
    const result = spawnSync(process.execPath, [MAIN, 'serve', '--port', '0', '--data-dir', tempDir(), '--config', CONFIG], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      encoding: 'utf8',
      timeout: TEST_TIMEOUT_MS,
    })
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported')
  })
})
