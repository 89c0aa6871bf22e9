import type { SkillDefinition } from '../../skill/index.js'
import { realpathSync } from 'node:fs'
import { runProcess, type ProcessGroups } from '../../system/index.js'
import { SkillError } from '../../runtime/index.js'
import type { Pack } from './load-packs.js'
import { isInside } from '../../system/index.js'

export const MAX_PACK_OUTPUT = 16 * 1024 * 1024

/**
 * A pack as a skill: input JSON on stdin, one JSON value on stdout, in the pack folder, with an
 * environment holding only the allowlisted variables. Running groups are recorded in `groups`.
 */
export function packSkill(pack: Pack, groups?: ProcessGroups): SkillDefinition {
  const { manifest } = pack
  return {
    key: manifest.name,
    description: manifest.description,
    class: manifest.class,
    category: manifest.category ?? 'packs',
    tags: manifest.tags,
    input: manifest.schema,
    ...(manifest.output_schema && { output: manifest.output_schema }),
    timeoutMs: manifest.timeout_seconds * 1000,
    secrets: manifest.secrets,
    ...(manifest.oauth && { oauth: { provider: manifest.oauth.provider, scopes: manifest.oauth.scopes, account: manifest.oauth.account } }),
    run: async (input, ctx) => {
      // The folder may have changed since loading: run only what still resolves inside the root.
      let entry: string
      let dir: string
      try {
        entry = realpathSync(pack.entry)
        dir = realpathSync(pack.dir)
      } catch {
        throw new SkillError('unavailable', `pack "${manifest.name}" is gone from its folder: reload the sources`)
      }
      if (entry !== pack.entry || dir !== pack.dir || !isInside(pack.root, entry)) {
        throw new SkillError('unavailable', `pack "${manifest.name}" changed on disk since it was loaded: reload the sources`)
      }
      const env: Record<string, string> = {}
      for (const name of manifest.env_allow) if (process.env[name] !== undefined) env[name] = process.env[name]!
      // Opened for this call only; a secret wins over an inherited variable of the same name.
      for (const name of manifest.secrets) env[name] = ctx.secrets.get(name)
      // The pipeline hands the connection's access token as the secret named after its provider.
      if (manifest.oauth) env[manifest.oauth.env] = ctx.secrets.get(manifest.oauth.provider)
      const result = await runProcess({
        file: entry,
        args: [],
        cwd: dir,
        env,
        stdin: JSON.stringify(input),
        maxOutputBytes: MAX_PACK_OUTPUT,
        signal: ctx.signal,
        groups,
      })
      try {
        return JSON.parse(result.stdout) as unknown
      } catch {
        const preview = result.stdout.trim().slice(0, 200)
        const stderr = result.stderr.slice(-4096).trim()
        throw new Error(
          `stdout is not one JSON value${preview ? ` (it starts: ${JSON.stringify(preview)})` : ' (it is empty)'}${stderr ? `; stderr: ${stderr}` : ''}`,
        )
      }
    },
  }
}
