import { createSocket, type Socket } from 'node:dgram'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decode, encode, RECURSION_AVAILABLE, type Answer } from 'dns-packet'
import { runSkill } from '../../../test-support/run-skill.js'
import { probeDns } from './probe-dns.js'

const NXDOMAIN = 3
const records: Record<string, Answer[]> = {
  'A web.test': [{ type: 'A', name: 'web.test', ttl: 60, data: '10.0.0.7' }],
  'MX web.test': [
    { type: 'MX', name: 'web.test', ttl: 60, data: { preference: 20, exchange: 'backup.web.test' } },
    { type: 'MX', name: 'web.test', ttl: 60, data: { preference: 10, exchange: 'mail.web.test' } },
  ],
  'TXT web.test': [{ type: 'TXT', name: 'web.test', ttl: 60, data: ['v=spf1 ', '-all'] }],
}

// A real DNS server on UDP: known names answer, silent.test is never answered, the rest is NXDOMAIN.
let server: Socket
let address: string
const asked: string[] = []
beforeAll(async () => {
  server = createSocket('udp4')
  server.on('message', (message, peer) => {
    const query = decode(message)
    const question = query.questions![0]!
    asked.push(`${question.type} ${question.name}`)
    if (question.name === 'silent.test') return
    const answers = records[`${question.type} ${question.name}`]
    const reply = encode({
      type: 'response',
      id: query.id,
      flags: RECURSION_AVAILABLE | (answers || question.name === 'web.test' ? 0 : NXDOMAIN),
      questions: query.questions,
      answers: answers ?? [],
    })
    server.send(reply, peer.port, peer.address)
  })
  await new Promise<void>((done) => server.bind(0, '127.0.0.1', done))
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => server.close())

describe('probe_dns', () => {
  it('resolves A records from the server given', async () => {
    const result = await runSkill(probeDns, { name: 'web.test', server: address })
    expect(result).toEqual({ answers: ['10.0.0.7'], latencyMs: expect.any(Number) })
    expect(asked).toContain('A web.test')
  })

  it('writes MX answers as "priority exchange", lowest priority first, and joins TXT chunks', async () => {
    expect((await runSkill(probeDns, { name: 'web.test', type: 'MX', server: address })).answers).toEqual(['10 mail.web.test', '20 backup.web.test'])
    expect((await runSkill(probeDns, { name: 'web.test', type: 'TXT', server: address })).answers).toEqual(['v=spf1 -all'])
  })

  it('answers a name that does not exist with no answers and ENOTFOUND', async () => {
    expect(await runSkill(probeDns, { name: 'missing.test', server: address })).toEqual({ answers: [], latencyMs: expect.any(Number), error: 'ENOTFOUND' })
  })

  it('answers a name without records of the type with ENODATA', async () => {
    expect(await runSkill(probeDns, { name: 'web.test', type: 'AAAA', server: address })).toMatchObject({ answers: [], error: 'ENODATA' })
  })

  it('gives up after timeoutMs when the server does not answer', async () => {
    const result = await runSkill(probeDns, { name: 'silent.test', server: address, timeoutMs: 300 })
    expect(result).toMatchObject({ answers: [], error: 'ETIMEOUT' })
  })

  it('stops when the call is aborted', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('deadline')), 100)
    await expect(runSkill(probeDns, { name: 'silent.test', server: address, timeoutMs: 30_000 }, controller.signal)).rejects.toThrow('deadline')
  })

  it('refuses a bad name or server', async () => {
    await expect(runSkill(probeDns, { name: 'web.test; rm -rf /', server: address })).rejects.toThrow('must be a DNS name')
    for (const server of ['dns.google', '127.0.0.1:99999', '[127.0.0.1]:53', 'example:53']) {
      await expect(runSkill(probeDns, { name: 'web.test', server })).rejects.toThrow('must be an IP address')
    }
    // IPv6 in brackets with a port, and plain addresses, are fine.
    expect(probeDns.input!.safeParse({ name: 'web.test', server: '[::1]:5353' }).success).toBe(true)
    expect(probeDns.input!.safeParse({ name: 'web.test', server: '::1' }).success).toBe(true)
  })
})
