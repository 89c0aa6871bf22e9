import { realpathSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { createLogger, resolveConfig } from '../../../config/index.js'
import { findConfigFile, loadConfigFile } from '../../../config/load-config.js'
import { EdgeAgent, EdgeRefused } from '../../../edge-agent/index.js'
import { edgeLabels, hostSkills } from '../../../sources/edge/index.js'
import { loadPacks, packSkill } from '../../../sources/packs/index.js'
import type { SkillDefinition } from '../../../skill/index.js'
import { CliError } from '../cli-error.js'
import { parseLabels } from '../parse-labels.js'

/** Exit status of an edge the managers refuse (a revoked token): a supervisor should not restart it as is. */
export const REFUSED_EXIT = 3

export async function edge(o: {
  dataDir: string
  config?: string
  manager: string
  token?: string
  name?: string
  label?: string[]
  packs?: string[]
  allowRead?: string[]
  allowShell?: boolean
  logLevel: string
}): Promise<void> {
  const token = o.token ?? process.env.SKILLPLANE_EDGE_TOKEN
  if (!token) throw new CliError('give --token TOKEN (or set SKILLPLANE_EDGE_TOKEN): the token `skillplane edges enroll` printed')
  const managers = o.manager
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
  for (const url of managers) {
    if (!/^https?:\/\/[^/\s]+/.test(url)) throw new CliError(`--manager takes http:// or https:// URLs of managers, got "${url}"`)
  }
  if (managers.length === 0) throw new CliError('--manager needs at least one URL')
  const labels = parseLabels(o.label ?? [], edgeLabels)
  const allowRead = (o.allowRead ?? []).map((dir) => {
    try {
      const real = realpathSync(resolve(dir))
      if (!statSync(real).isDirectory()) throw new Error('not a folder')
      return real
    } catch (error) {
      throw new CliError(`--allow-read ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
  })
  const logger = createLogger(o.logLevel, 2)
  const skills: Array<{ definition: SkillDefinition; origin: string }> = hostSkills({ allowRead, allowShell: o.allowShell ?? false }).map((definition) => ({
    definition,
    origin: 'built-in host skill',
  }))
  // The config's host-scope code skills run here too (the manager knows them from the same config).
  const file = findConfigFile(o.config)
  if (file) {
    const config = await resolveConfig(await loadConfigFile(file), { dataDir: resolve(o.dataDir) }, file)
    for (const definition of config.skills) if (definition.scope === 'host') skills.push({ definition, origin: file })
  }
  const builtIn = new Set(skills.map((s) => s.definition.key))
  const packs = loadPacks(
    (o.packs ?? []).map((dir) => resolve(dir)),
    (name) => (builtIn.has(name) ? 'a built-in host skill' : undefined),
    // The manager checks the provider: it knows the config's providers, and refuses the pack if it names another.
    () => null,
  )
  for (const f of packs.findings) logger[f.severity === 'error' ? 'error' : 'warn']({ file: f.file, line: f.line }, `skill pack: ${f.message}`)
  for (const pack of packs.packs) skills.push({ definition: { ...packSkill(pack), scope: 'host' }, origin: pack.file })

  const agent = new EdgeAgent({ managers, token, name: o.name, labels, skills, logger }).start()
  const stop = () => void agent.stop()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    await agent.finished
  } catch (error) {
    if (error instanceof EdgeRefused) throw new CliError(error.message, REFUSED_EXIT)
    throw error
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}
