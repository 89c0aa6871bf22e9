import { readFileSync } from 'node:fs'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { CliError } from '../cli-error.js'
import { approvalFor } from '../../../runtime/index.js'

export async function invoke(
  key: string,
  o: GlobalOptions & { input: string; agent?: string; edge?: string; conversation?: string; approvalId?: string; wait?: string | true },
): Promise<void> {
  const input = parseInput(o.input)
  const wait = o.wait === undefined || o.wait === true ? o.wait : parseSeconds(o.wait)
  const envelope = await withPlane(o, async (plane) => {
    // An MCP tool is known (and its class current) only once its server is connected.
    const skill = plane.skills.get(key)
    if (!skill || skill.source === 'mcp') await plane.sources.connectMcp()
    return plane.invoke(key, input, {
      caller: localAdmin(),
      agent: o.agent,
      edgeId: o.edge,
      conversationId: o.conversation,
      approval: approvalFor(o.approvalId, wait),
    })
  })
  console.log(JSON.stringify(envelope, null, 2))
  if (!envelope.ok) process.exitCode = 1
}

function parseSeconds(raw: string): number {
  const seconds = Number(raw)
  if (!Number.isInteger(seconds) || seconds < 1) throw new CliError(`--wait takes a whole number of seconds, got "${raw}"`)
  return seconds
}

function parseInput(raw: string): unknown {
  let text = raw
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8')
    } catch (error) {
      throw new CliError(`cannot read input file ${raw.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new CliError(`--input is not valid JSON: ${(error as Error).message}`)
  }
}
