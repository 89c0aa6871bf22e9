import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { unknownProvider } from '../../config/index.js'
import type { Registry } from '../../registry/index.js'
import type { SkillLogger } from '../../skill/index.js'
import { isInside, type ProcessGroups } from '../../system/index.js'
import type { Finding } from '../agent-skills/index.js'
import type { SkillSource, SourceReport } from '../skill-source/index.js'
import { loadPacks } from './load-packs.js'
import { packSkill } from './pack-skill.js'

export interface PackSourceOptions {
  dirs: readonly string[]
  registry: Registry
  processGroups: ProcessGroups
  /** A name another kind of source (instruction skills) holds, or undefined. */
  reserved(name: string): string | undefined
  /** The config's OAuth providers, which a pack's `oauth` may name. */
  providers: readonly string[]
  logger: SkillLogger
}

/** The skill packs under the configured roots, each run as a subprocess. */
export class PackSource implements SkillSource {
  readonly kind = 'pack'
  readonly #o: PackSourceOptions
  #findings: readonly Finding[] = []

  constructor(options: PackSourceOptions) {
    this.#o = options
  }

  start(): Promise<void> {
    return this.reload()
  }

  // Packs are registered as a whole set: a folder that fails to load must not cost the working packs.
  async reload(): Promise<void> {
    const { registry, processGroups, reserved, providers } = this.#o
    const packs = loadPacks(
      this.#o.dirs,
      (name) => {
        const holder = registry.get(name)
        if (holder && holder.source !== 'pack') return `skill "${holder.key}" (${holder.origin})`
        return reserved(name)
      },
      (provider) => unknownProvider(provider, providers),
    )
    registry.removeSource('pack')
    const found = [...packs.findings]
    for (const pack of packs.packs) {
      try {
        registry.register(packSkill(pack, processGroups), { source: 'pack', origin: pack.file })
      } catch (error) {
        // A schema ajv can't compile skips the pack, like any other bad manifest.
        found.push({ file: pack.file, line: 1, severity: 'error', message: `${(error as Error).message}; skipped` })
      }
    }
    for (const f of found) this.#o.logger[f.severity === 'error' ? 'error' : 'warn']({ file: f.file, line: f.line }, `skill pack: ${f.message}`)
    this.#findings = found
  }

  /** What loading the configured skill packs found wrong (those packs were skipped). */
  get findings(): readonly Finding[] {
    return this.#findings
  }

  /** One entry per configured root, with the packs found under it. */
  report(): SourceReport {
    const packs = this.#o.registry.list().filter((s) => s.source === 'pack')
    return {
      skills: packs.map((s) => s.key).sort(),
      entries: this.#o.dirs.map((dir) => ({
        name: dir,
        state: 'loaded',
        reason: null,
        skills: packs
          .filter((s) => isInside(realPath(dir), s.origin))
          .map((s) => s.key)
          .sort(),
        problems: [],
        details: {},
      })),
      findings: [...this.#findings],
    }
  }

  async close(): Promise<void> {}
}

// Pack files are named by their real paths; a root that is gone holds none.
function realPath(dir: string): string {
  try {
    return realpathSync(resolve(dir))
  } catch {
    return resolve(dir)
  }
}
