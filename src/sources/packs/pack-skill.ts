import type { SkillDefinition } from '../../skill/skill-types.js'
import { runProcess } from '../subprocess/run-process.js'
import type { Pack } from './load-packs.js'

export const MAX_PACK_OUTPUT = 16 * 1024 * 1024

/**
 * A pack as a skill: input JSON on stdin, one JSON value on stdout, in the pack folder, with an
 * environment holding only the allowlisted variables.
 */
export function packSkill(pack: Pack): SkillDefinition {
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
    run: async (input, ctx) => {
      const env: Record<string, string> = {}
      for (const name of manifest.env_allow) if (process.env[name] !== undefined) env[name] = process.env[name]!
      const result = await runProcess({
        file: pack.entry,
        args: [],
        cwd: pack.dir,
        env,
        stdin: JSON.stringify(input),
        maxOutputBytes: MAX_PACK_OUTPUT,
        signal: ctx.signal,
      })
      try {
        return JSON.parse(result.stdout) as unknown
      } catch {
        const preview = result.stdout.trim().slice(0, 200)
        const stderr = result.stderr.slice(-4096).trim()
        throw new Error(`stdout is not one JSON value${preview ? ` (it starts: ${JSON.stringify(preview)})` : ' (it is empty)'}${stderr ? `; stderr: ${stderr}` : ''}`)
      }
    },
  }
}
