import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { CliError } from '../cli-error.js'
import { approvalFor } from '../../../runtime/index.js'

export function invokeCommand(program: Command): void {
  program
    .command('invoke <key>')
    .description('run a skill in-process through the pipeline, as a local admin (audited like any call)')
    .option('--input <json>', 'the input as JSON, or @FILE to read it from a file', '{}')
    .option('--agent <agent>', 'run on behalf of this agent (its bindings apply)')
    .option('--conversation <id>', 'conversation id recorded on the audit row')
    .option('--approval-id <id>', 'run with this approved request (the same input only; it runs once)')
    .option('--wait [seconds]', 'if approval is needed, wait for the decision (default: the configured time)')
    .action(async (key: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { input: string; agent?: string; conversation?: string; approvalId?: string; wait?: string | true }>()
      const input = parseInput(o.input)
      const wait = o.wait === undefined || o.wait === true ? o.wait : parseSeconds(o.wait)
      const envelope = await withPlane(o, async (plane) => {
        // An MCP tool is known (and its class current) only once its server is connected.
        const skill = plane.registry.get(key)
        if (!skill || skill.source === 'mcp') await plane.connectMcp()
        return plane.invoke(key, input, { caller: localAdmin(), agent: o.agent, conversationId: o.conversation, approval: approvalFor(o.approvalId, wait) })
      })
      console.log(JSON.stringify(envelope, null, 2))
      if (!envelope.ok) process.exitCode = 1
    })
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
