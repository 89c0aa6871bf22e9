import { spawn } from 'node:child_process'
import { connect, createServer, type AddressInfo, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { runSkill } from '../../../test-support/run-skill.js'
import { probeTcp } from './probe-tcp.js'

let server: Server | null = null
const cleanups: (() => void)[] = []
afterEach(async () => {
  if (server?.listening) await new Promise((done) => server!.close(done))
  server = null
  for (const cleanup of cleanups.splice(0)) cleanup()
})

async function listen(): Promise<number> {
  server = createServer((socket) => socket.destroy())
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done))
  return (server.address() as AddressInfo).port
}

/**
 * A port whose SYNs go unanswered: a process listening with a backlog of 1 that never accepts
 * (its thread is parked), with the accept queue filled, so the kernel drops further SYNs.
 */
async function unansweredPort(): Promise<number> {
  const parked = `const s = require('net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    console.log(s.address().port); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0) })`
  const child = spawn(process.execPath, ['-e', parked], { stdio: ['ignore', 'pipe', 'inherit'] })
  cleanups.push(() => child.kill('SIGKILL'))
  const port = Number(await new Promise<string>((done) => child.stdout.once('data', (data: Buffer) => done(data.toString()))))
  for (let i = 0; i < 2; i++) {
    const filler = connect({ host: '127.0.0.1', port })
    cleanups.push(() => filler.destroy())
    await new Promise((done) => filler.once('connect', done))
  }
  return port
}

describe('probe_tcp', () => {
  it('reports an open port', async () => {
    const port = await listen()
    const result = await runSkill(probeTcp, { host: '127.0.0.1', port })
    expect(result).toEqual({ open: true, latencyMs: expect.any(Number) })
  })

  it('reports a closed port with the reason', async () => {
    const port = await listen()
    await new Promise((done) => server!.close(done))
    const result = await runSkill(probeTcp, { host: '127.0.0.1', port })
    expect(result).toMatchObject({ open: false, error: `connect ECONNREFUSED 127.0.0.1:${port}` })
  })

  it('gives up after timeoutMs on a port that never completes the handshake', async () => {
    const port = await unansweredPort()
    const result = await runSkill(probeTcp, { host: '127.0.0.1', port, timeoutMs: 300 })
    expect(result).toMatchObject({ open: false, error: 'no connection within 300 ms' })
  })

  it('stops when the call is aborted', async () => {
    const port = await unansweredPort()
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('deadline')), 100)
    await expect(runSkill(probeTcp, { host: '127.0.0.1', port, timeoutMs: 30_000 }, controller.signal)).rejects.toThrow('deadline')
  })

  it('refuses a bad host or port', async () => {
    await expect(runSkill(probeTcp, { host: 'a b', port: 80 })).rejects.toThrow('must be a host name or an IP address')
    await expect(runSkill(probeTcp, { host: 'localhost', port: 70_000 })).rejects.toThrow()
  })
})
