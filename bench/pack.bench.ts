import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createSkillplane } from '../src/index.js'
import { verdict, type BenchSection } from './section.js'
import { alternateRounds, BENCH_CALLER, type Spread } from './support.js'
import { loadAverage, measure, medianOf, minMedian, roundRatios } from './per-call.js'

export interface PackBenchResult {
  calls: number
  /** Wall ms per call, median round. */
  packMs: number
  directMs: number
  /** pack ÷ direct wall time: the median of the rounds' ratios. */
  ratio: number
  ratios: Spread
  /** CPU µs per call of this process and its children (the script, the watchdog), median round. */
  packCpuMicros: number
  directCpuMicros: number
  cpuRatios: Spread
  rounds: number
  load: { before: string; after: string }
}

/** The reference: spawn the same executable, write the JSON input, parse its JSON output. */
function direct(file: string, input: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [], { env: {}, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.on('error', reject)
    child.on('close', () => resolve(JSON.parse(out)))
    child.stdin.end(JSON.stringify(input))
  })
}

/** A pack that echoes its input, invoked through the whole pipeline, against spawning it directly. */
export async function runPackBench(calls = 400, rounds = 5): Promise<PackBenchResult> {
  const root = mkdtempSync(join(tmpdir(), 'skillplane-bench-pack-'))
  const dir = join(root, 'packs', 'echo_pack')
  mkdirSync(dir, { recursive: true })
  const script = join(dir, 'run.sh')
  writeFileSync(script, '#!/bin/sh\nexec /bin/cat\n')
  chmodSync(script, 0o755)
  writeFileSync(join(dir, 'skill.json'), JSON.stringify({ name: 'echo_pack', description: 'Echo', entry: 'run.sh', class: 'safe' }))
  const plane = await createSkillplane({
    config: { packDirs: [join(root, 'packs')] },
    dataDir: join(root, 'data'),
    logger: pino({ level: 'silent' }),
    sync: true,
  })
  try {
    const input = { n: 1, text: 'hello' }
    const before = loadAverage()
    const pack = async () => {
      const result = await plane.invoke('echo_pack', input, { caller: BENCH_CALLER })
      if (!result.ok) throw new Error(`pack call failed: ${result.error.message}`)
    }
    const spawnIt = async () => void (await direct(script, input))
    await measure(20, 1, spawnIt)
    await measure(20, 1, pack)
    const per = Math.round(calls / rounds)
    const r = await alternateRounds(rounds, {
      direct: () => measure(per, 1, spawnIt, { children: true }),
      pack: () => measure(per, 1, pack, { children: true }),
    })
    const wall = roundRatios(r.pack, r.direct, (p) => p.ms)
    return {
      calls,
      packMs: medianOf(r.pack, (p) => p.ms),
      directMs: medianOf(r.direct, (p) => p.ms),
      ratio: wall.median,
      ratios: wall,
      packCpuMicros: medianOf(r.pack, (p) => p.cpuMicros),
      directCpuMicros: medianOf(r.direct, (p) => p.cpuMicros),
      cpuRatios: roundRatios(r.pack, r.direct, (p) => p.cpuMicros),
      rounds,
      load: { before, after: loadAverage() },
    }
  } finally {
    await plane.close()
    rmSync(root, { recursive: true, force: true })
  }
}

const PACK_TARGET_RATIO = 1.2

export const packSection: BenchSection = {
  name: 'pack',
  title: 'Skill pack invocation',
  async run(log) {
    const pack = await runPackBench()
    log(`  pack ${pack.packMs.toFixed(2)} ms/call, direct spawn ${pack.directMs.toFixed(2)} ms/call, ratio ${pack.ratio.toFixed(2)}×`)
    return {
      targets: [
        {
          target: `skill pack call ≤ ${PACK_TARGET_RATIO}× spawning the script directly`,
          figure: `${pack.ratio.toFixed(2)}× (min ${pack.ratios.min.toFixed(2)}×); CPU ${pack.cpuRatios.median.toFixed(2)}×`,
          verdict: verdict(pack.ratio <= PACK_TARGET_RATIO),
        },
      ],
      body: `A pack whose entry is \`#!/bin/sh\` + \`exec /bin/cat\` (it echoes its JSON input), invoked ${pack.calls} times in
sequence through the whole pipeline (validation, audit, process group, caps), against spawning the
same script with \`child_process\`, writing the same JSON and parsing its output, in ${pack.rounds} alternating
rounds in the same process (load ${pack.load.before} → ${pack.load.after}). CPU counts this process and its children
(the script, and for the pack the watchdog that kills its process group if the manager dies).

| path | ms per call (median round) | CPU µs per call |
| --- | --- | --- |
| skillplane pack | ${pack.packMs.toFixed(2)} | ${pack.packCpuMicros.toFixed(0)} |
| direct spawn | ${pack.directMs.toFixed(2)} | ${pack.directCpuMicros.toFixed(0)} |

Pack ÷ direct: **${minMedian(pack.ratios)}** in wall time, ${minMedian(pack.cpuRatios)} in CPU (target ≤ ${PACK_TARGET_RATIO}×).`,
    }
  },
}
