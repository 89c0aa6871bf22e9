// Runs in its own process, on the built package (plain node, no TypeScript loader), so its time and
// peak memory (maxRSS) belong to one measurement.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadInstructionSkills, SkillFileCache, validateSkills } from '../dist/sources/agent-skills/index.js'

const [root, mode] = [process.argv[2], process.argv[3]]
const start = performance.now()
const cpuStart = process.cpuUsage()
const cpuMs = () => {
  const used = process.cpuUsage(cpuStart)
  return (used.user + used.system) / 1000
}
let result = {}
if (mode === 'read') {
  // The floor: listing every folder of the tree (nested skills must be found) and reading every
  // SKILL.md, without parsing or checks.
  let bytes = 0
  let skills = 0
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else if (entry.name === 'SKILL.md') {
        bytes += readFileSync(join(dir, entry.name), 'utf8').length
        skills++
      }
    }
  }
  walk(root)
  result = { skills, bytes }
} else if (mode === 'load') {
  const cache = new SkillFileCache()
  const { skills } = loadInstructionSkills([root], { maxDepth: 6, maxSkills: 100_000 }, cache)
  result = { skills: skills.length }
  const loadMs = performance.now() - start
  const loadCpuMs = cpuMs()
  // Reload after one file changed: only that file is parsed again.
  const changed = join(root, readdirSync(root)[0], 'SKILL.md')
  writeFileSync(changed, readFileSync(changed, 'utf8') + '\nOne more line.\n')
  cache.parses = 0
  const reloadStart = performance.now()
  loadInstructionSkills([root], { maxDepth: 6, maxSkills: 100_000 }, cache)
  result = { ...result, loadMs, loadCpuMs, reloadMs: performance.now() - reloadStart, reloadParses: cache.parses }
} else {
  const report = validateSkills([root], { maxDepth: 6, maxSkills: 100_000 })
  result = { skills: report.skills, errors: report.errors }
}
const ms = result.loadMs ?? performance.now() - start
const cpu = result.loadCpuMs ?? cpuMs()
console.log(JSON.stringify({ ...result, ms, cpuMs: cpu, maxRssMB: process.resourceUsage().maxRSS / 1024 }))
