import { connect } from 'node:net'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillplane, type Skillplane } from '../../agents/index.js'
import { tempDir, waitFor } from '../../test-support/databases.js'
import { testSkills } from '../../test-support/fixtures.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe('a client that disconnects mid-body', () => {
  const lines: { level: number; msg: string }[] = []
  let plane: Skillplane
  let server: HttpServer
  let key: string
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)))
        done()
      },
    })
    plane = await createSkillplane({ config: { skills: testSkills() }, dataDir: tempDir(), logger: pino({ level: 'info' }, sink), sync: true })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    key = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
  })
  afterAll(async () => {
    await server.close()
    await plane.close()
  })

  it('is logged as a warning, not an error, and nothing runs or is audited', async () => {
    const url = new URL(server.url)
    for (const path of ['/api/skills/echo/invoke', '/mcp']) {
      const socket = connect(Number(url.port), '127.0.0.1')
      await new Promise((resolve) => socket.on('connect', resolve))
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"input":`,
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      socket.destroy()
    }
    await waitFor(() => lines.some((l) => l.msg === 'the client disconnected before its request was read'), 5_000)
    expect(lines.filter((l) => l.level >= 50)).toEqual([])
    expect((await plane.audit.query({ limit: 10 })).items).toEqual([])
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
  })

  it('cancels a running call when its client hangs up, and audits it interrupted', async () => {
    const url = new URL(server.url)
    const socket = connect(Number(url.port), '127.0.0.1')
    await new Promise((resolve) => socket.on('connect', resolve))
    const body = JSON.stringify({ input: { ms: 60_000 } })
    socket.write(
      `POST /api/skills/slow/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
    const row = async () => (await plane.audit.query({ skill: 'slow', limit: 10 })).items[0]
    await waitFor(async () => (await row())?.status === 'running', 5_000)
    socket.destroy()
    await waitFor(async () => (await row())?.status !== 'running', 5_000)
    expect(await row()).toMatchObject({ status: 'interrupted', error: { code: 'unavailable', message: 'the call was cancelled by its caller' } })
  })

  it('leaves a call whose client stays to the end ok', async () => {
    const response = await fetch(`${server.url}/api/skills/slow/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { ms: 1 } }),
    })
    expect(await response.json()).toMatchObject({ ok: true, data: { slept: 1 } })
    const rows = (await plane.audit.query({ skill: 'slow', status: 'ok', limit: 10 })).items
    expect(rows).toHaveLength(1)
  })
})
