import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { verdict, type BenchSection } from './section.js'
import { alternate, type Spread } from './support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const CONFIG = join(ROOT, 'examples/skillplane.config.ts')
const TARGET_MS = 500
const ROUNDS = 5

/**
 * CPU time (user + system, ms) of one command, its subprocesses included: bash's `times` after it
 * exits gives what the shell's waited-for children used, which load on the machine barely moves.
 */
function cpuMs(args: string[], cwd: string): number {
  const out = execFileSync('bash', ['-c', '"$@" >/dev/null 2>&1; times', 'cpu', process.execPath, ...args], { cwd, encoding: 'utf8' })
  // `times` prints the shell's own line, then its children's: "0m0.412s 0m0.061s".
  const children = out.trim().split('\n').pop()!
  const [user, system] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60_000 + Number(m[2]) * 1000)
  return user! + system!
}

/** Each command in turn, in alternating rounds, against `node -e 0` (the floor: starting Node at all). */
export async function runCliBench(rounds = ROUNDS): Promise<Record<string, Spread>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-bench-cli-'))
  // A folder with no config in it, for the same store opened without one.
  const bare = mkdtempSync(join(tmpdir(), 'skillplane-bench-cli-cwd-'))
  const withConfig = ['--data-dir', dataDir, '--config', CONFIG]
  let key = 0
  try {
    // The first open migrates a new store: done once here, so every round opens an existing one.
    cpuMs([MAIN, ...withConfig, 'keys', 'list'], ROOT)
    const commands = await alternate(rounds, {
      'node -e 0 (the floor)': async () => cpuMs(['-e', '0'], ROOT),
      'skillplane --version': async () => cpuMs([MAIN, '--version'], ROOT),
      'skills list': async () => cpuMs([MAIN, ...withConfig, 'skills', 'list'], ROOT),
      'keys create': async () => cpuMs([MAIN, ...withConfig, 'keys', 'create', '--name', `bench-${key++}`, '--role', 'viewer'], ROOT),
      'keys list': async () => cpuMs([MAIN, ...withConfig, 'keys', 'list'], ROOT),
      'keys list, no config': async () => cpuMs([MAIN, '--data-dir', dataDir, 'keys', 'list'], bare),
    })
    return commands
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(bare, { recursive: true, force: true })
  }
}

const ms = (n: number) => `${Math.round(n)} ms`

export const cliSection: BenchSection = {
  name: 'cli',
  title: 'CLI start-up',
  async run(log) {
    const commands = await runCliBench()
    for (const [name, s] of Object.entries(commands)) log(`  ${name}: CPU min ${ms(s.min)}, median ${ms(s.median)}`)
    const list = commands['skills list']!
    const create = commands['keys create']!
    const floor = commands['node -e 0 (the floor)']!
    const config = commands['keys list']!.median - commands['keys list, no config']!.median
    return {
      targets: [
        {
          target: `CLI commands that open the store start in < ${TARGET_MS} ms CPU`,
          figure: `skills list ${ms(list.median)}, keys create ${ms(create.median)} (median of ${ROUNDS} rounds; node -e 0: ${ms(floor.median)})`,
          verdict: verdict(list.median < TARGET_MS && create.median < TARGET_MS),
        },
      ],
      body: `CPU time (user + system, the command's subprocesses included) of one CLI command each, from the
built package (\`node dist/surfaces/cli/main.js\`, bundled by \`npm run build\`), in ${ROUNDS} alternating
rounds, against starting Node itself (\`node -e 0\`). The store is SQLite, migrated before the first
round; the config is \`examples/skillplane.config.ts\` (TypeScript, loaded through jiti), and
"no config" opens the same store from a folder without one, so the difference is the config's cost.
\`skills list\` loads every source (code, packs, SKILL.md folders) and starts the config's MCP server.

| command | CPU min | CPU median | median − floor |
| --- | --- | --- | --- |
${Object.entries(commands)
  .map(([name, s]) => `| ${name} | ${ms(s.min)} | ${ms(s.median)} | ${ms(s.median - floor.median)} |`)
  .join('\n')}

Loading the TypeScript config (median \`keys list\` with it less without it): ${ms(config)}.`,
    }
  },
}
