import type { Finding } from './finding.js'
import type { ParsedSkillMd } from './parse-skill-md.js'
import { didYouMean } from '../../text/index.js'

export const SPEC_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const
// Client extensions skillplane honours: allowed, but flagged as outside the specification.
const EXTENSIONS = ['disable-model-invocation']
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
// The specification's limits are in characters: code points, so an emoji counts once, not as two UTF-16 units.
const characters = (text: string) => [...text].length

/** The front matter as loaded: what the spec allows, normalised. */
export function isValidName(name: string): boolean {
  return characters(name) >= 1 && characters(name) <= 64 && NAME.test(name)
}

export interface SkillFrontMatter {
  name: string
  description: string
  license: string | null
  compatibility: string | null
  metadata: Record<string, string>
  allowedTools: string[]
  /** A client extension (not in the spec): hide the skill from the model's catalog. */
  disableModelInvocation: boolean
}

export interface FrontMatterCheck {
  /** Null when the skill can't be loaded at all (no usable description). */
  frontMatter: SkillFrontMatter | null
  findings: Finding[]
}

/**
 * The Agent Skills specification's rules for front matter. `strict` (the validator) makes every
 * breach an error; otherwise (loading) only a missing description is, and the rest are warnings.
 */
export function checkFrontMatter(parsed: ParsedSkillMd, options: { file: string; folderName: string; strict: boolean }): FrontMatterCheck {
  const { data, keyLines } = parsed
  const findings: Finding[] = []
  const lineOf = (key: string) => keyLines[key] ?? 2
  const breach = (key: string, message: string) =>
    findings.push({ file: options.file, line: lineOf(key), severity: options.strict ? 'error' : 'warning', message })
  const fatal = (key: string, message: string) => findings.push({ file: options.file, line: lineOf(key), severity: 'error', message })

  for (const key of Object.keys(data)) {
    if (EXTENSIONS.includes(key)) {
      findings.push({
        file: options.file,
        line: lineOf(key),
        severity: 'warning',
        message: `"${key}" is a client extension, not in the specification; skillplane honours it`,
      })
    } else if (!(SPEC_KEYS as readonly string[]).includes(key)) {
      breach(key, `unknown front-matter key "${key}"${didYouMean(key, [...SPEC_KEYS, ...EXTENSIONS])}: the specification allows ${SPEC_KEYS.join(', ')}`)
    }
  }

  // A name that breaks the rules is never used (it names folders and paths): the folder's is, if valid.
  const folderValid = isValidName(options.folderName)
  let name: string | null = folderValid ? options.folderName : null
  if (data.name === undefined) breach('name', `name is required${folderValid ? ` (using the folder name "${options.folderName}")` : ''}`)
  else if (typeof data.name !== 'string') breach('name', 'name must be a string')
  else if (characters(data.name) < 1 || characters(data.name) > 64) breach('name', `name must be 1-64 characters, got ${characters(data.name)}`)
  else if (!NAME.test(data.name)) {
    breach('name', `name "${data.name}" must use only a-z, 0-9 and hyphens, without a leading, trailing or doubled hyphen`)
  } else {
    name = data.name
    if (name !== options.folderName) breach('name', `name "${name}" must equal its folder's name "${options.folderName}"`)
  }
  if (name === null && !options.strict) fatal('name', 'no usable name: neither the front matter nor the folder has a valid one; skipped')

  let description: string | null = null
  if (typeof data.description !== 'string' || data.description.trim() === '') {
    fatal('description', data.description === undefined ? 'description is required' : 'description must be a non-empty string')
  } else {
    description = data.description.trim()
    if (characters(data.description) > 1024) breach('description', `description must be at most 1024 characters, got ${characters(data.description)}`)
  }

  if (data.license !== undefined && typeof data.license !== 'string') breach('license', 'license must be a string')
  if (data.compatibility !== undefined) {
    if (typeof data.compatibility !== 'string') breach('compatibility', 'compatibility must be a string')
    else if (characters(data.compatibility) > 500)
      breach('compatibility', `compatibility must be at most 500 characters, got ${characters(data.compatibility)}`)
  }
  const metadata: Record<string, string> = {}
  if (data.metadata !== undefined) {
    if (typeof data.metadata !== 'object' || data.metadata === null || Array.isArray(data.metadata))
      breach('metadata', 'metadata must be a map of strings to strings')
    else {
      for (const [key, value] of Object.entries(data.metadata)) {
        // defineProperty: a "__proto__" key must stay a key, not become the map's prototype.
        if (typeof value === 'string') Object.defineProperty(metadata, key, { value, enumerable: true, writable: true, configurable: true })
        else breach('metadata', `metadata.${key} must be a string, got ${Array.isArray(value) ? 'a list' : typeof value}`)
      }
    }
  }
  let allowedTools: string[] = []
  if (data['allowed-tools'] !== undefined) {
    if (typeof data['allowed-tools'] !== 'string') breach('allowed-tools', 'allowed-tools must be a space-separated string')
    else allowedTools = data['allowed-tools'].split(/\s+/).filter(Boolean)
  }

  return {
    findings,
    frontMatter:
      description === null || name === null
        ? null
        : {
            name,
            description,
            license: typeof data.license === 'string' ? data.license : null,
            compatibility: typeof data.compatibility === 'string' ? data.compatibility : null,
            metadata,
            allowedTools,
            disableModelInvocation: data['disable-model-invocation'] === true,
          },
  }
}
