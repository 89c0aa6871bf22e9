import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const CHILD = fileURLToPath(new URL('./skill-loading.child.mjs', import.meta.url))

export interface LoadingFigures {
  skills: number
  /** Reading the files only: the reference. */
  readPerSecond: number
  loadPerSecond: number
  validatePerSecond: number
  loadMaxRssMB: number
  validateMaxRssMB: number
  reloadMs: number
  reloadParses: number
}

/** A tree of n generated skills, each a SKILL.md with front matter, a body with a link, and a reference file. */
function generate(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'skillplane-bench-skills-'))
  for (let i = 0; i < n; i++) {
    const name = `generated-skill-${i}`
    mkdirSync(join(root, name, 'references'), { recursive: true })
    writeFileSync(
      join(root, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: Generated skill number ${i}, for measuring how fast folders of skills load.\nlicense: Apache-2.0\nmetadata:\n  owner: bench\n  index: "${i}"\n---\n# Skill ${i}\n\n` +
        `1. Read [the guide](references/guide.md).\n2. Do step two.\n3. Do step three.\n\n${'Some instructions that make the body realistic. '.repeat(8)}\n`,
    )
    writeFileSync(join(root, name, 'references', 'guide.md'), `# Guide ${i}\n`)
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
        readPerSecond: (n / read.ms!) * 1000,
        loadPerSecond: (n / load.ms!) * 1000,
        validatePerSecond: (n / validate.ms!) * 1000,
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
