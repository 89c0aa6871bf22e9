import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { verdict, type BenchSection } from './section.js'
import { int } from './support.js'

const CHILD = fileURLToPath(new URL('./skill-loading.child.mjs', import.meta.url))

export interface LoadingFigures {
  skills: number
  /** Average SKILL.md size in bytes. */
  averageBytes: number
  /** Walking the tree and reading each SKILL.md, nothing parsed: the floor. */
  readPerSecond: number
  loadPerSecond: number
  validatePerSecond: number
  /** The same per CPU second (user + system), which a loaded machine barely moves. */
  readCpuPerSecond: number
  loadCpuPerSecond: number
  validateCpuPerSecond: number
  loadMaxRssMB: number
  validateMaxRssMB: number
  reloadMs: number
  reloadParses: number
}

/** The average size of a real SKILL.md (about 2,800 files from 19 public repositories): 7.7 KB. */
const REAL_AVERAGE_BYTES = 7_700

/** One generated SKILL.md shaped like real ones: sections, lists, code, a table and five links. */
function skillFile(name: string, i: number): string {
  const head =
    `---\nname: ${name}\ndescription: Use when a task needs generated skill number ${i}, which walks through checking, changing and verifying ` +
    `a service step by step, with the commands to run and what to look for in their output.\nlicense: Apache-2.0\n` +
    `allowed-tools: Bash Read\nmetadata:\n  owner: bench\n  index: "${i}"\n---\n# Skill ${i}\n\n`
  const section = (k: number) =>
    `## Step ${k}\n\nRead [the guide](references/guide-${k % 3}.md) and run [the check](scripts/check-${k % 2}.py) before changing anything.\n\n` +
    `1. Confirm the service is healthy and note its version.\n2. Make the change in small steps, checking each one.\n3. Verify the result and record it.\n\n` +
    '```bash\nsystemctl status example.service --no-pager\njournalctl -u example.service --since "10 min ago" | tail -n 50\n```\n\n' +
    `| signal | meaning | action |\n| --- | --- | --- |\n| exit 0 | healthy | go on |\n| exit 3 | stopped | start it, then check again |\n\n` +
    `${'Some instructions that make the body as long as real ones are, with the details a model needs. '.repeat(3)}\n\n`
  let body = head
  for (let k = 1; body.length + section(k).length <= REAL_AVERAGE_BYTES; k++) body += section(k)
  return body + 'More detail. '.repeat(Math.max(0, Math.floor((REAL_AVERAGE_BYTES - body.length) / 13))) + '\n'
}

/** A tree of n generated skills of real size, each with its reference files and scripts. */
export function generate(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'skillplane-bench-skills-'))
  for (let i = 0; i < n; i++) {
    const name = `generated-skill-${i}`
    mkdirSync(join(root, name, 'references'), { recursive: true })
    mkdirSync(join(root, name, 'scripts'), { recursive: true })
    writeFileSync(join(root, name, 'SKILL.md'), skillFile(name, i))
    for (let k = 0; k < 3; k++) writeFileSync(join(root, name, 'references', `guide-${k}.md`), `# Guide ${k} of skill ${i}\n`)
    for (let k = 0; k < 2; k++) writeFileSync(join(root, name, 'scripts', `check-${k}.py`), `print("check ${k}")\n`)
  }
  return root
}

function child(root: string, mode: 'read' | 'load' | 'validate'): Record<string, number> {
  const out = execFileSync(process.execPath, [CHILD, root, mode], { encoding: 'utf8' })
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>
}

export function runSkillLoadingBench(sizes = [1_000, 10_000]): LoadingFigures[] {
  return sizes.map((n) => {
    const root = generate(n)
    try {
      const read = child(root, 'read')
      const load = child(root, 'load')
      const validate = child(root, 'validate')
      if (load.skills !== n || validate.errors !== 0) throw new Error(`expected ${n} clean skills, got ${JSON.stringify({ load, validate })}`)
      return {
        skills: n,
        averageBytes: read.bytes! / n,
        readPerSecond: (n / read.ms!) * 1000,
        loadPerSecond: (n / load.ms!) * 1000,
        validatePerSecond: (n / validate.ms!) * 1000,
        readCpuPerSecond: (n / read.cpuMs!) * 1000,
        loadCpuPerSecond: (n / load.cpuMs!) * 1000,
        validateCpuPerSecond: (n / validate.cpuMs!) * 1000,
        loadMaxRssMB: load.maxRssMB!,
        validateMaxRssMB: validate.maxRssMB!,
        reloadMs: load.reloadMs!,
        reloadParses: load.reloadParses!,
      }
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
}

const LOADING_TARGET = 5_000
const VALIDATE_TARGET = 2_000

export const loadingSection: BenchSection = {
  name: 'loading',
  title: 'Loading SKILL.md folders',
  async run(log) {
    const loading = runSkillLoadingBench()
    for (const l of loading)
      log(
        `  ${int(l.skills)} skills: load ${int(l.loadPerSecond)}/s, validate ${int(l.validatePerSecond)}/s, peak ${l.loadMaxRssMB.toFixed(0)} MB; reload re-parsed ${l.reloadParses} in ${l.reloadMs.toFixed(0)} ms`,
      )
    return {
      targets: [
        {
          target: `≥ ${int(LOADING_TARGET)} SKILL.md skills/s loaded cold`,
          figure: loading.map((l) => `${int(l.loadPerSecond)}/s at ${int(l.skills)} (per CPU second ${int(l.loadCpuPerSecond)}/s)`).join(', '),
          verdict: verdict(loading.every((l) => l.loadPerSecond >= LOADING_TARGET)),
        },
        {
          target: `≥ ${int(VALIDATE_TARGET)} SKILL.md skills/s validated`,
          figure: loading.map((l) => `${int(l.validatePerSecond)}/s at ${int(l.skills)} (per CPU second ${int(l.validateCpuPerSecond)}/s)`).join(', '),
          verdict: verdict(loading.every((l) => l.validatePerSecond >= VALIDATE_TARGET)),
        },
        {
          target: 'a reload after one change re-parses only that file',
          figure: loading.map((l) => `${l.reloadParses} parse at ${int(l.skills)}`).join(', '),
          verdict: verdict(loading.every((l) => l.reloadParses === 1)),
          fact: true,
        },
      ],
      body: `Generated trees of skill folders of real size (each SKILL.md about as long as the 7.7 KB average
of about 2,800 public ones: sections, lists, code, a table, five links; three reference files and
two scripts beside it), each measurement in a fresh process so its peak memory is its own. The
floor is walking the tree (every folder is listed, since nested skills must be found) and
reading every SKILL.md without parsing it. Loading parses front matter (YAML 1.2) and applies
the lenient rules; validating applies the strict rules plus the body and link checks (markdown
lexed with marked, each relative link's target checked on disk). Reload: one SKILL.md changed,
the tree loaded again with the same cache.

| skills | avg SKILL.md | walk + read /s (per CPU s) | load /s (per CPU s) | load ÷ floor | validate /s (per CPU s) | peak RSS load | peak RSS validate | reload ms | files re-parsed |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${loading.map((l) => `| ${int(l.skills)} | ${(l.averageBytes / 1000).toFixed(1)} KB | ${int(l.readPerSecond)} (${int(l.readCpuPerSecond)}) | ${int(l.loadPerSecond)} (${int(l.loadCpuPerSecond)}) | ${(l.loadPerSecond / l.readPerSecond).toFixed(2)}× | ${int(l.validatePerSecond)} (${int(l.validateCpuPerSecond)}) | ${l.loadMaxRssMB.toFixed(0)} MB | ${l.validateMaxRssMB.toFixed(0)} MB | ${l.reloadMs.toFixed(0)} | ${l.reloadParses} |`).join('\n')}`,
    }
  },
}
