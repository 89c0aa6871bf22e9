import { createHash } from 'node:crypto'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { isValidKey, compileSchema } from '../../skill/index.js'

export interface SopDocument {
  id: string
  title: string
  /** Skill keys the procedure covers. */
  skills: string[]
  /** Per skill, a JSON Schema the call's input must also satisfy (e.g. a maximum count). */
  constraints: Record<string, Record<string, unknown>>
  body: string
  /** SHA-256 of the exact document text. */
  hash: string
}

const frontMatter = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'ids are 1-64 characters of a-z, 0-9 and hyphens'),
  title: z.string().trim().min(1).max(200),
  skills: z.array(z.string().refine(isValidKey, 'not a skill key')).min(1),
  constraints: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
})

export type ParsedSop = { ok: true; sop: SopDocument } | { ok: false; message: string }

/** A standard operating procedure: markdown with YAML front matter naming the skills it covers. */
export function parseSop(text: string): ParsedSop {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text)
  if (!match) return { ok: false, message: 'an SOP starts with YAML front matter between --- lines' }
  let data: unknown
  try {
    data = parseYaml(match[1]!)
  } catch (error) {
    return { ok: false, message: `its front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}` }
  }
  const parsed = frontMatter.safeParse(data)
  if (!parsed.success) {
    return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || 'front matter'}: ${i.message}`).join('; ') }
  }
  const uncovered = Object.keys(parsed.data.constraints).filter((k) => !parsed.data.skills.includes(k))
  if (uncovered.length > 0) return { ok: false, message: `constraints name skills the SOP does not cover: ${uncovered.join(', ')}` }
  for (const [skill, schema] of Object.entries(parsed.data.constraints)) {
    try {
      compileSchema(schema, 'input', `constraints.${skill}`)
    } catch (error) {
      return { ok: false, message: (error as Error).message }
    }
  }
  return {
    ok: true,
    sop: { ...parsed.data, body: match[2]!, hash: createHash('sha256').update(text).digest('hex') },
  }
}
