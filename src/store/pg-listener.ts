import pg from 'pg'

export interface Listener {
  close(): Promise<void>
}

/**
 * LISTEN on a channel with a connection of its own (a pooled one could be handed to a query in
 * between): notifications reach `onPayload`; a dropped connection is reopened, and `onReconnect`
 * runs so the listener can catch up on what it may have missed meanwhile.
 */
export async function listen(url: string, channel: string, onPayload: (payload: string) => void, onReconnect: () => void): Promise<Listener> {
  let client: pg.Client | null = null
  let closed = false
  let retry: NodeJS.Timeout | undefined
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload)
    })
    next.on('error', () => {
      if (client !== next || closed) return
      client = null
      next.end().catch(() => {})
      schedule()
    })
    await next.connect()
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    client = next
  }
  const schedule = () => {
    retry = setTimeout(() => {
      connect().then(onReconnect, () => !closed && schedule())
    }, 1_000)
    retry.unref()
  }
  await connect()
  return {
    async close() {
      closed = true
      clearTimeout(retry)
      await client?.end().catch(() => {})
    },
  }
}
