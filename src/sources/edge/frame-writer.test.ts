import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { waitFor } from '../../test-support/databases.js'
import { FrameWriter } from './frame-writer.js'

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** A real server whose connections hand over their raw socket, and a client that collects what it hears. */
async function connect(): Promise<{ writer: FrameWriter; server: WebSocket; heard: string[]; client: WebSocket }> {
  const wss = new WebSocketServer({ noServer: true })
  const server = createServer()
  const accepted = new Promise<{ ws: WebSocket; raw: Duplex }>((resolve) =>
    server.on('upgrade', (request, raw: Duplex, head) => wss.handleUpgrade(request, raw, head, (ws) => resolve({ ws, raw }))),
  )
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`)
  const heard: string[] = []
  client.on('message', (data) => heard.push(String(data)))
  const { ws, raw } = await accepted
  await new Promise((r) => (client.readyState === WebSocket.OPEN ? r(null) : client.once('open', r)))
  closers.push(async () => {
    client.terminate()
    ws.terminate()
    await new Promise((r) => server.close(r))
  })
  return { writer: new FrameWriter(ws, raw), server: ws, heard, client }
}

describe('FrameWriter', () => {
  it('delivers every frame sent in one turn, in order, and those of later turns', async () => {
    const { writer, heard } = await connect()
    for (let i = 0; i < 100; i++) writer.send(`frame ${i}`)
    await waitFor(() => heard.length === 100)
    expect(heard).toEqual(Array.from({ length: 100 }, (_, i) => `frame ${i}`))
    await Promise.resolve().then(() => writer.send('from a microtask'))
    setImmediate(() => writer.send('from the next turn'))
    await waitFor(() => heard.length === 102)
    expect(heard.slice(100)).toEqual(['from a microtask', 'from the next turn'])
  })

  it('writes each frame at once without the raw socket', async () => {
    const { server, heard } = await connect()
    const writer = new FrameWriter(server, undefined)
    writer.send('a')
    writer.send('b')
    await waitFor(() => heard.length === 2)
    expect(heard).toEqual(['a', 'b'])
  })

  it('drops a frame for a connection that is closing, without throwing', async () => {
    const { writer, server, client, heard } = await connect()
    const closed = new Promise((r) => client.once('close', r))
    server.close(1000, 'done')
    expect(() => writer.send('too late')).not.toThrow()
    await closed
    expect(heard).toEqual([])
  })
})
