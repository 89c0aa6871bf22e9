import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { generate } from 'selfsigned'
import { runSkill } from '../../../test-support/run-skill.js'
import { probeHttp } from './probe-http.js'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((done) => server.close(done))
  }
})

async function listen(server: Server): Promise<number> {
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return (server.address() as AddressInfo).port
}

function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  return listen(createServer(handler))
}

describe('probe_http', () => {
  it('reports the status and counts 2xx and 3xx as ok when no status is expected', async () => {
    const port = await serve((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end()
      else if (req.url === '/down') res.writeHead(503).end('down')
      else res.end('fine')
    })
    const up = await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/` })
    expect(up).toMatchObject({ status: 200, ok: true })
    expect(up.latencyMs).toBeGreaterThanOrEqual(0)
    expect(up).not.toHaveProperty('tls')
    expect(up).not.toHaveProperty('error')
    // Redirects are reported, never followed.
    expect(await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/moved` })).toMatchObject({ status: 302, ok: true })
    expect(await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/down` })).toMatchObject({ status: 503, ok: false })
  })

  it('is ok only when the status matches expectStatus', async () => {
    const port = await serve((_req, res) => res.writeHead(503).end())
    expect(await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, expectStatus: 503 })).toMatchObject({ status: 503, ok: true })
    expect(await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, expectStatus: 200 })).toMatchObject({ status: 503, ok: false })
  })

  it('sends the method asked for', async () => {
    const methods: string[] = []
    const port = await serve((req, res) => {
      methods.push(req.method!)
      res.writeHead(204).end()
    })
    expect(await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, method: 'HEAD' })).toMatchObject({ status: 204, ok: true })
    await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, method: 'POST' })
    expect(methods).toEqual(['HEAD', 'POST'])
  })

  it('reads only the start of an endless body', async () => {
    const port = await serve((_req, res) => {
      const chunk = Buffer.alloc(1024, 'x')
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump)
      }
      pump()
    })
    const result = await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, timeoutMs: 5000 })
    expect(result).toMatchObject({ status: 200, ok: true })
    expect(result.latencyMs).toBeLessThan(5000)
  })

  it('gives up after timeoutMs on a server that never answers, with status 0', async () => {
    const port = await serve(() => {})
    const result = await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, timeoutMs: 300 })
    expect(result).toMatchObject({ status: 0, ok: false, error: 'no response within 300 ms' })
  })

  it('reports a refused connection as status 0 with the reason', async () => {
    const port = await serve(() => {})
    await new Promise((done) => servers.pop()!.close(done))
    const result = await runSkill(probeHttp, { url: `http://127.0.0.1:${port}/` })
    expect(result).toMatchObject({ status: 0, ok: false })
    expect(result.error).toMatch(/ECONNREFUSED 127\.0\.0\.1/)
  })

  it('stops when the call is aborted', async () => {
    const port = await serve(() => {})
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('deadline')), 100)
    await expect(runSkill(probeHttp, { url: `http://127.0.0.1:${port}/`, timeoutMs: 30_000 }, controller.signal)).rejects.toThrow('deadline')
  })

  it('refuses URLs that are not http or https', async () => {
    await expect(runSkill(probeHttp, { url: 'file:///etc/passwd' })).rejects.toThrow('must be an http:// or https:// URL')
    await expect(runSkill(probeHttp, { url: 'https://admin:secret@127.0.0.1/' })).rejects.toThrow('must not carry a user name or password')
    await expect(runSkill(probeHttp, { url: 'https://admin@127.0.0.1/' })).rejects.toThrow('must not carry a user name or password')
    // An @ in the path or query is not a credential.
    expect(probeHttp.input!.safeParse({ url: 'https://127.0.0.1/users/@me?mail=a@b.c' }).success).toBe(true)
    await expect(runSkill(probeHttp, { url: 'http://127.0.0.1/', timeoutMs: 120_000 })).rejects.toThrow(/60000/)
  })

  describe('https', () => {
    async function serveTls(): Promise<{ port: number; notAfter: Date }> {
      const notAfter = new Date(Date.now() + 30 * 86_400_000 + 3_600_000)
      const pems = await generate([{ name: 'commonName', value: 'localhost' }], { notAfterDate: notAfter, algorithm: 'sha256' })
      const server = createHttpsServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('secure'))
      return { port: await listen(server), notAfter }
    }

    it('describes the certificate and accepts an untrusted one with insecure', async () => {
      const { port, notAfter } = await serveTls()
      const result = await runSkill(probeHttp, { url: `https://127.0.0.1:${port}/`, insecure: true })
      expect(result).toMatchObject({ status: 200, ok: true })
      expect(result.tls).toMatchObject({ daysLeft: 30, authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT' })
      expect(result.tls.subject).toContain('CN=localhost')
      expect(result.tls.issuer).toContain('CN=localhost')
      // Certificates keep whole seconds.
      expect(Math.abs(Date.parse(result.tls.validTo) - notAfter.getTime())).toBeLessThan(1000)
    })

    it('fails an untrusted certificate without insecure, still describing it', async () => {
      const { port } = await serveTls()
      const result = await runSkill(probeHttp, { url: `https://127.0.0.1:${port}/` })
      expect(result).toMatchObject({ status: 0, ok: false, tls: { authorized: false, authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT' } })
      expect(result.error).toContain('the certificate does not verify (DEPTH_ZERO_SELF_SIGNED_CERT)')
    })
  })
})
