// The reference edge: dials the bench's bare ws server and answers each call with its input, as
// fast as ws allows (no validation, no skill, no audit).
import { WebSocket } from 'ws'

const ws = new WebSocket(process.argv[2])
ws.on('message', (data) => {
  const call = JSON.parse(String(data))
  ws.send(JSON.stringify({ type: 'result', id: call.id, ok: true, data: call.input }))
})
ws.on('close', () => process.exit(0))
