import { createServer } from 'node:net'

/** A port free now on 127.0.0.1, for a server whose address another party must know before it starts (an identity provider's redirect URI). */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}
