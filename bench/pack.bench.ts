import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createSkillplane } from '../src/index.js'
import { verdict, type BenchSection } from './section.js'
import { BENCH_CALLER } from './support.js'

export interface PackBenchResult {
  calls: number
  packMs: number
  directMs: number
  ratio: number
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
export async function runPackBench(calls = 400): Promise<PackBenchResult> {
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
    // Warm both paths, then alternate rounds so drift hits both alike.
    for (let i = 0; i < 20; i++) {
      await direct(script, input)
      await plane.invoke('echo_pack', input, { caller: BENCH_CALLER })
    }
    let packMs = 0
    let directMs = 0
    for (let round = 0; round < 4; round++) {
      let start = performance.now()
      for (let i = 0; i < calls / 4; i++) await direct(script, input)
      directMs += performance.now() - start
      start = performance.now()
      for (let i = 0; i < calls / 4; i++) {
        const result = await plane.invoke('echo_pack', input, { caller: BENCH_CALLER })
        if (!result.ok) throw new Error(`pack call failed: ${result.error.message}`)
      }
      packMs += performance.now() - start
    }
    return { calls, packMs: packMs / calls, directMs: directMs / calls, ratio: packMs / directMs }
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
          figure: `${pack.ratio.toFixed(2)}×`,
          verdict: verdict(pack.ratio <= PACK_TARGET_RATIO),
        },
      ],
      body: `A pack whose entry is \`#!/bin/sh\` + \`exec /bin/cat\` (it echoes its JSON input), invoked ${pack.calls} times in
sequence through the whole pipeline (validation, audit, process group, caps), against spawning the
same script with \`child_process\`, writing the same JSON and parsing its output, in alternating
rounds in the same process.

| path | ms per call |
| --- | --- |
| skillplane pack | ${pack.packMs.toFixed(2)} |
| direct spawn | ${pack.directMs.toFixed(2)} |

Pack ÷ direct: **${pack.ratio.toFixed(2)}×** (target ≤ ${PACK_TARGET_RATIO}×).`,
    }
  },
}
