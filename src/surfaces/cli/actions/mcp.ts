import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { ulid } from 'ulid'
import { openPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { CliError } from '../cli-error.js'
import { openMcpServer } from '../../mcp/index.js'
import type { Caller } from '../../../skill/index.js'
import { agentCaller } from '../../../registry/index.js'

export async function mcp(o: GlobalOptions & { agent?: string }): Promise<void> {
  // stdout carries JSON-RPC only: logs go to stderr (openPlane's logger writes there).
  const plane = await openPlane(o, { sync: true, connectMcp: true, resumeRuns: true, services: true })
  let caller: Caller = localAdmin()
  if (o.agent) {
    const agentId = plane.agents.resolve(o.agent)
    if (!agentId) {
      await plane.close()
      throw new CliError(`unknown agent "${o.agent}"`)
    }
    caller = agentCaller(agentId, plane.agents.get(agentId)?.name ?? agentId)
  }
  const server = await openMcpServer(plane, { caller, conversationId: `mcp-stdio:${ulid()}` })
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await server.close().catch(() => {})
    await plane.close()
    process.exit(0)
  }
  server.onclose = ((previous) => () => {
    previous?.()
    void stop()
  })(server.onclose)
  process.once('SIGINT', () => void stop())
  process.once('SIGTERM', () => void stop())
  // The client closing our stdin is the end of the session.
  process.stdin.once('end', () => void stop())
  await server.connect(new StdioServerTransport())
}
