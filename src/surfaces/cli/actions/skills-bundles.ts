import { read } from 'read'
import { join, relative, resolve, sep } from 'node:path'
import {
  discoverSkills,
  fetchSource,
  frozenMismatches,
  managedTarget,
  parseSource,
  pinSource,
  planInstall,
  planLocked,
  projectTarget,
  removeSkill,
  risksNeedingAcceptance,
  scanRisks,
  type FetchedSource,
  type RiskFinding,
  type InstallPlan,
  type InstallTarget,
  type NetworkAccess,
  type PlannedSkill,
  SkillInstaller,
} from '../../../install/index.js'
import { formatFinding } from '../../../sources/agent-skills/index.js'
import type { Plane } from '../../../plane/index.js'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { printPlanLines } from './print-plan.js'
import { CliError } from '../cli-error.js'

interface TargetOptions extends GlobalOptions {
  project?: boolean
  yes?: boolean
  acceptRisk?: boolean
  allowLoopback?: boolean
  allowRedirects?: boolean
}

export async function skillsAdd(input: string, o: TargetOptions & { skill?: string[]; list?: boolean; pin?: string; json?: boolean }): Promise<void> {
  const source = parseSource(input)
  const parsed = o.pin === undefined ? source : pinSource(source, o.pin)
  const target = targetOf(o)
  const fetched = await fetchSource(parsed, accessOf(o))
  try {
    if (o.list) return listSource(fetched, o.json ?? false)
    const plan = await planInstall(fetched, { target, select: o.skill ?? [], scan: scanRisks })
    printPlan(plan)
    if (plan.skills.length === 0) throw new CliError(`${fetched.source.source} holds no skill that can be installed`)
    const pending = plan.skills.filter((s) => s.change !== 'unchanged')
    if (pending.length === 0)
      return console.log(`nothing to install: ${plan.skills.map((s) => s.name).join(', ')} ${plan.skills.length === 1 ? 'is' : 'are'} installed already`)
    refuseRisks(pending, o, 'installed')
    if (!(await confirm(`install ${count(pending.length, 'skill')} into ${shown(target.root)}?`, o, false))) return console.log('nothing installed')
    await install(o, target, [plan], (installed) => `installed ${installed.join(', ')} into ${shown(target.root)}; ${shown(target.lockfile)} updated`)
  } finally {
    fetched.dispose()
  }
}

export async function skillsUpdate(name: string | undefined, o: TargetOptions): Promise<void> {
  const target = targetOf(o)
  const locked = await planLocked(target, { names: name === undefined ? [] : [name], scan: scanRisks, ...accessOf(o) })
  try {
    for (const problem of locked.problems) console.log(`! ${problem.name}: ${problem.message}`)
    const plans = locked.plans.filter((plan) => plan.skills.some((s) => s.change !== 'unchanged'))
    for (const plan of locked.plans) printPlan(plan)
    if (plans.length === 0) {
      if (locked.problems.length === 0) console.log('everything is up to date')
    } else {
      const skills = plans.flatMap((plan) => plan.skills).filter((s) => s.change !== 'unchanged')
      refuseRisks(skills, o, 'updated')
      if (await confirm(`apply these changes to ${count(skills.length, 'skill')}?`, o, true))
        await install(o, target, plans, (applied) => `updated ${applied.join(', ')}; ${shown(target.lockfile)} updated`)
      else console.log('nothing updated')
    }
  } finally {
    locked.dispose()
  }
  if (locked.problems.length > 0) process.exitCode = 1
}

export async function skillsInstall(o: TargetOptions & { frozen?: boolean }): Promise<void> {
  const target = targetOf(o)
  // What the lockfile pins was accepted when it was added: its risks are shown and recorded, not asked about again; changed content is.
  const locked = await planLocked(target, { scan: scanRisks, ...accessOf(o) })
  try {
    for (const problem of locked.problems) console.log(`! ${problem.name}: ${problem.message}`)
    if (o.frozen) {
      const mismatches = frozenMismatches(target, locked)
      const refused = [
        ...locked.problems.map((p) => p.name),
        ...mismatches.map((m) => {
          console.log(`! ${m.name}: the lockfile pins computedHash ${m.locked}, its source now gives ${m.fetched}`)
          return m.name
        }),
      ]
      if (refused.length > 0)
        throw new CliError(
          `--frozen: ${refused.join(', ')} can't be installed as ${shown(target.lockfile)} pins ${refused.length === 1 ? 'it' : 'them'}; nothing was installed`,
        )
    }
    const skills = locked.plans.flatMap((plan) => plan.skills)
    // Content the lockfile doesn't pin (it changed upstream) was never accepted.
    refuseRisks(
      skills.filter((s) => s.replaces !== null && s.replaces.computedHash !== s.lock.computedHash),
      o,
      'installed',
    )
    for (const plan of locked.plans) printPlan(plan)
    const pinned = `${skills.length} in ${shown(target.lockfile)}`
    if (skills.every((s) => s.change === 'unchanged')) console.log(`nothing to install: all ${pinned} are installed already`)
    else await install(o, target, locked.plans, (applied) => `installed ${applied.join(', ')} (of ${pinned})`, { writeLock: !o.frozen })
  } finally {
    locked.dispose()
  }
  if (locked.problems.length > 0) process.exitCode = 1
}

export async function skillsRemove(name: string, o: TargetOptions): Promise<void> {
  const target = targetOf(o)
  await removeSkill(target, name)
  console.log(`removed ${name} from ${shown(target.root)} and ${shown(target.lockfile)}`)
  await withPlane(o, async (plane) => {
    // Its catalog row goes too, and with it every binding to it; removing the last installed skill empties the catalog's sources on purpose.
    await plane.skills.sync({ prune: [name], force: true })
    console.log(`catalog: ${name} removed, with its bindings`)
  })
}

function accessOf(o: TargetOptions): NetworkAccess {
  return { allowLoopback: o.allowLoopback ?? false, allowRedirects: o.allowRedirects ?? false }
}

/** High-risk findings in what would be installed need --accept-risk: they were printed with the plan. */
function refuseRisks(skills: ReadonlyArray<PlannedSkill<RiskFinding>>, o: TargetOptions, done: string): void {
  const risky = skills.filter((s) => risksNeedingAcceptance(s.risks).length > 0)
  if (risky.length === 0 || o.acceptRisk) return
  const findings = risky.reduce((n, s) => n + risksNeedingAcceptance(s.risks).length, 0)
  throw new CliError(
    `${risky.map((s) => s.name).join(', ')} ${risky.length === 1 ? 'has' : 'have'} ${count(findings, 'high-risk finding')} (listed above): nothing ${done}; read them, then run again with --accept-risk`,
  )
}

function targetOf(o: TargetOptions): InstallTarget {
  return o.project ? projectTarget() : managedTarget(o.dataDir)
}

function listSource(fetched: FetchedSource, json: boolean): void {
  const found = discoverSkills(fetched.root, fetched.base)
  if (json) {
    const skills = found.skills.map(({ name, description, skillPath, findings }) => ({ name, description, skillPath, findings }))
    return console.log(JSON.stringify({ source: fetched.source.source, commit: fetched.commit, skills, findings: found.findings }, null, 2))
  }
  console.log(fetchedLine(fetched))
  for (const finding of [...found.findings, ...found.skills.flatMap((s) => s.findings)]) console.log(formatFinding(finding))
  if (found.skills.length === 0) return console.log('no skills')
  console.log(
    formatTable(
      ['NAME', 'PATH', 'DESCRIPTION'],
      found.skills.map((s) => [s.name, s.skillPath, truncate(s.description, 60)]),
    ),
  )
}

function printPlan(plan: InstallPlan<RiskFinding>): void {
  console.log(fetchedLine(plan.fetched))
  printPlanLines(
    plan.findings,
    plan.skills.map((s) => ({ ...s, files: Object.keys(s.files).length })),
  )
}

function fetchedLine(fetched: FetchedSource): string {
  const at = fetched.commit ? ` (commit ${fetched.commit.slice(0, 12)})` : fetched.archive ? ` (sha256 ${fetched.archive.sha256.slice(0, 12)})` : ''
  const what = fetched.source.kind === 'folder' ? 'copied' : 'fetched'
  return `${what} ${fetched.source.location}${fetched.source.ref ? ` at ${fetched.source.ref}` : ''}${at}`
}

/** Ask on a terminal; without one, `add` goes ahead (it says what to install) but `update` needs --yes. */
async function confirm(question: string, o: { yes?: boolean }, needsYes: boolean): Promise<boolean> {
  if (o.yes) return true
  if (!process.stdin.isTTY) {
    if (needsYes) throw new CliError(`${question.replace(/\?$/, '')}: no terminal to ask on; run again with --yes to apply`)
    return true
  }
  const answer = await read({ prompt: `${question} [y/N] `, output: process.stderr })
  return /^y(es)?$/i.test(answer.trim())
}

/**
 * Apply the reviewed plans with the installer the API uses: once the files are in place, a plane
 * opens, loads the skills, syncs the catalog and audits each installed skill as `skill.installed`.
 * Then say for each whether it is served and to which agents (a running server loads them as well).
 */
async function install(
  o: TargetOptions,
  target: InstallTarget,
  plans: ReadonlyArray<InstallPlan<RiskFinding>>,
  done: (installed: readonly string[]) => string,
  options: { writeLock?: boolean } = {},
): Promise<void> {
  const installer = new SkillInstaller({
    target,
    now: () => new Date().toISOString(),
    settle: async (installed, work) => {
      console.log(done(installed))
      await withPlane(o, async (plane) => {
        await work({ catalog: plane.skills, events: plane.audit.events, reload: async () => void (await plane.skills.sync()) })
        served(plane, target, installed)
      })
    },
  })
  await installer.apply(plans, localAdmin(), { acceptRisk: o.acceptRisk, access: accessOf(o), ...options })
}

function served(plane: Plane, target: InstallTarget, names: readonly string[]): void {
  if (!plane.skills.instructions.dirs.some((d) => resolve(d.path) === target.root))
    return console.log(`note: the config doesn't load ${shown(target.root)} (set projectSkills: true to load the project's .agents/skills)`)
  for (const name of names) {
    const skill = plane.skills.instructions.get(name)
    if (skill && isUnder(target.root, skill.file)) {
      console.log(`${name}: served, bound to ${plane.skills.agentsBoundTo(name).join(', ') || 'no agent'}`)
      continue
    }
    const why = plane.skills.instructions.findings.filter((f) => f.severity === 'error' && isUnder(join(target.root, name), f.file))
    if (skill) console.log(`${name}: not served: ${skill.file} defines a skill of that name first`)
    for (const finding of why) console.log(`${name}: not served: ${finding.message}`)
  }
}

function isUnder(root: string, file: string): boolean {
  const rel = relative(root, file)
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)
}

function shown(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel !== '' && !rel.startsWith('..') ? rel : path
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
