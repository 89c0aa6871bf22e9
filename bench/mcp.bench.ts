import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createSkillplane, defineSkill } from '../src/index.js'
import { verdict, type BenchSection } from './section.js'
import { alternateRounds, BENCH_CALLER, type Spread } from './support.js'
import { loadAverage, measure, medianOf, minMedian, roundRatios } from './per-call.js'

export interface McpModeFigures {
  inFlight: number
  /** Wall ms per call, median round. */
  importedMs: number
  directMs: number
  /** A no-op code skill through the same pipeline: the part of importedMs that is not MCP. */
  pipelineMs: number
  /** imported ÷ direct wall time: the median of the rounds' ratios. */
  ratio: number
  ratios: Spread
  /** CPU µs per call of this process (the SDK client, the pipeline; not the servers' own), median round. */
  importedCpuMicros: number
  directCpuMicros: number
  pipelineCpuMicros: number
  cpuRatios: Spread
  rounds: number
  load: { before: string; after: string }
}

export interface McpBenchResult {
  calls: number
  sequential: McpModeFigures
  concurrent: McpModeFigures
}

const SERVER = fileURLToPath(new URL('./mcp-echo-server.mjs', import.meta.url))

/**
 * An MCP-imported skill through the whole pipeline (validation, policy, durable audit rows, the
 * SDK client) against calling a second instance of the same stdio server with the SDK client
 * directly, in `rounds` alternating rounds in the same process.
 */
export async function runMcpBench(calls = 4_000, rounds = 5): Promise<McpBenchResult> {
  const root = mkdtempSync(join(tmpdir(), 'skillplane-bench-mcp-'))
  const noop = defineSkill({
    key: 'noop',
    description: 'Answer what the MCP tool answers, without MCP.',
    class: 'safe',
    input: { type: 'object', properties: { n: { type: 'integer' }, text: { type: 'string' } }, required: ['n'] },
    run: (input) => ({ content: [{ type: 'text', text: JSON.stringify(input) }] }),
  })
  const plane = await createSkillplane({
    config: { skills: [noop], mcpServers: [{ name: 'bench', command: process.execPath, args: [SERVER] }] },
    dataDir: join(root, 'data'),
    logger: pino({ level: 'silent' }),
    sync: true,
  })
  const client = new Client({ name: 'bench-direct', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER] }))
  try {
    const input = { n: 1, text: 'hello' }
    const imported = async () => {
      const result = await plane.invoke('bench_echo', input, { caller: BENCH_CALLER })
      if (!result.ok) throw new Error(`imported call failed: ${result.error.message}`)
    }
    const pipelineOnly = async () => {
      const result = await plane.invoke('noop', input, { caller: BENCH_CALLER })
      if (!result.ok) throw new Error(`no-op call failed: ${result.error.message}`)
    }
    const direct = async () => {
      const result = await client.callTool({ name: 'echo', arguments: input })
      if (result.isError) throw new Error('direct call failed')
    }
    const mode = async (inFlight: number): Promise<McpModeFigures> => {
      const before = loadAverage()
      await measure(200, inFlight, direct)
      await measure(200, inFlight, imported)
      await measure(200, inFlight, pipelineOnly)
      const per = Math.round(calls / rounds)
      const r = await alternateRounds(rounds, {
        direct: () => measure(per, inFlight, direct),
        imported: () => measure(per, inFlight, imported),
        pipeline: () => measure(per, inFlight, pipelineOnly),
      })
      const wall = roundRatios(r.imported, r.direct, (p) => p.ms)
      return {
        inFlight,
        importedMs: medianOf(r.imported, (p) => p.ms),
        directMs: medianOf(r.direct, (p) => p.ms),
        pipelineMs: medianOf(r.pipeline, (p) => p.ms),
        ratio: wall.median,
        ratios: wall,
        importedCpuMicros: medianOf(r.imported, (p) => p.cpuMicros),
        directCpuMicros: medianOf(r.direct, (p) => p.cpuMicros),
        pipelineCpuMicros: medianOf(r.pipeline, (p) => p.cpuMicros),
        cpuRatios: roundRatios(r.imported, r.direct, (p) => p.cpuMicros),
        rounds,
        load: { before, after: loadAverage() },
      }
    }
    return { calls, sequential: await mode(1), concurrent: await mode(16) }
  } finally {
    await client.close()
    await plane.close()
    rmSync(root, { recursive: true, force: true })
  }
}

const MCP_TARGET_RATIO = 1.5
const MCP_CONCURRENT_TARGET_RATIO = 1.2

export const mcpSection: BenchSection = {
  name: 'mcp',
  title: 'MCP-imported calls',
  async run(log) {
    const mcp = await runMcpBench()
    const modes = { sequential: mcp.sequential, concurrent: mcp.concurrent }
    for (const [mode, m] of Object.entries(modes))
      log(
        `  ${mode} (${m.inFlight} in flight): imported ${m.importedMs.toFixed(3)} ms/call, direct ${m.directMs.toFixed(3)}, no-op pipeline ${m.pipelineMs.toFixed(3)}, ratio ${m.ratio.toFixed(2)}×`,
      )
    return {
      targets: [
        {
          target: `MCP-imported call ≤ ${MCP_TARGET_RATIO}× the same call with the SDK client sequential, ≤ ${MCP_CONCURRENT_TARGET_RATIO}× with ${mcp.concurrent.inFlight} in flight`,
          figure: `${mcp.sequential.ratio.toFixed(2)}× sequential (min ${mcp.sequential.ratios.min.toFixed(2)}×), ${mcp.concurrent.ratio.toFixed(2)}× with ${mcp.concurrent.inFlight} in flight (min ${mcp.concurrent.ratios.min.toFixed(2)}×); CPU ${mcp.sequential.cpuRatios.median.toFixed(2)}× / ${mcp.concurrent.cpuRatios.median.toFixed(2)}×`,
          verdict: verdict(mcp.sequential.ratio <= MCP_TARGET_RATIO && mcp.concurrent.ratio <= MCP_CONCURRENT_TARGET_RATIO),
        },
      ],
      body: `A stdio MCP server (official SDK, \`bench/mcp-echo-server.mjs\`) with one read-only \`echo\` tool,
imported as \`bench_echo\` and invoked ${mcp.calls.toLocaleString('en-US')} times per path through the whole pipeline
(schema check, policy, the durable \`running\` and final audit rows, the SDK client), against a
second instance of the same server called with the SDK client directly, in ${mcp.sequential.rounds} alternating rounds in
the same process. The third path is a no-op code skill through the same pipeline: what the
pipeline costs without MCP. Times are the median round; ratios are per round (min and median);
CPU is this process's (the SDK client and the pipeline, not the servers').

| mode | in flight | imported ms/call | direct SDK ms/call | no-op pipeline ms/call | imported ÷ direct | CPU µs/call imported / direct / no-op | CPU imported ÷ direct | load (1/5 min) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${Object.entries(modes)
  .map(
    ([mode, m]) =>
      `| ${mode} | ${m.inFlight} | ${m.importedMs.toFixed(3)} | ${m.directMs.toFixed(3)} | ${m.pipelineMs.toFixed(3)} | ${minMedian(m.ratios)} | ${m.importedCpuMicros.toFixed(0)} / ${m.directCpuMicros.toFixed(0)} / ${m.pipelineCpuMicros.toFixed(0)} | ${minMedian(m.cpuRatios)} | ${m.load.before} → ${m.load.after} |`,
  )
  .join('\n')}

Imported less direct less the no-op pipeline, in CPU: ${Object.entries(modes)
        .map(([mode, m]) => `${mode} ${(m.importedCpuMicros - m.directCpuMicros - m.pipelineCpuMicros).toFixed(0)} µs`)
        .join(', ')}: what the MCP executor and its output check add beyond the pipeline's own work and the audit commits.`,
    }
  },
}
