// Many edges in one process: an EdgeAgent per token, each with its own WebSocket to the manager and
// the skills a real `skillplane edge` offers (the built-in host skills) plus the bench's no-op.
// One process for all of them, because a `skillplane edge` process holds about 90 MB.
import pino from 'pino'
import { EdgeAgent } from '../dist/edge-agent/index.js'
import { hostSkills } from '../dist/sources/edge/index.js'
import { defineSkill } from '../dist/index.js'

const manager = process.argv[2]
const tokens = (process.env.SKILLPLANE_EDGE_TOKENS ?? '').split(',').filter(Boolean)
const noop = defineSkill({
  key: 'edge_noop',
  description: 'Returns its input',
  class: 'safe',
  scope: 'host',
  input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  run: (input) => ({ n: input.n }),
})
const skills = [
  ...hostSkills({ allowRead: [], allowShell: false }).map((definition) => ({ definition, origin: 'built-in host skill' })),
  { definition: noop, origin: 'bench' },
]
const logger = pino({ level: 'error' })
const agents = tokens.map((token) => new EdgeAgent({ managers: [manager], token, labels: {}, skills, logger }).start())
for (const agent of agents) agent.finished.catch((error) => (console.error(error.message), process.exit(1)))
const stop = () => Promise.all(agents.map((agent) => agent.stop())).then(() => process.exit(0))
process.once('SIGTERM', stop)
// The manager's process holds the other end of stdin: these edges end with it, however it ends.
process.stdin.once('end', stop).resume()
