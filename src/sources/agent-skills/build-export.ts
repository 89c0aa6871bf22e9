import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import tar from 'tar-stream'
import { hasOtherLinks, isInside } from '../../system/index.js'
import type { Caller } from '../../skill/index.js'
import type { CatalogView, InstructionLibrary } from './instruction-library.js'
import { renderTemplate, type TemplateView } from './render-template.js'
import { TEMPLATE_FILE } from './find-skill-dirs.js'

export const MANIFEST = 'skillplane-manifest.json'

export interface ExportSet {
  /** Relative path (skill-name/…) → content. */
  files: Map<string, Buffer>
  /** File modes: scripts keep their executable bit. */
  modes: Map<string, number>
  manifest: { agent: string | null; user: string; skills: string[]; files: Record<string, string> }
}

export interface ExportDeps {
  library: InstructionLibrary
  catalog: CatalogView
  templateView: (caller: Caller, agentId: string | null) => TemplateView
  categories: string[]
}

/**
 * The file set an agent (as a user) should have: each visible skill's folder, with templates
 * rendered to SKILL.md and never shipped raw, plus a manifest of content hashes.
 */
export function buildExport(deps: ExportDeps, caller: Caller, agentId: string | null): ExportSet {
  const files = new Map<string, Buffer>()
  const modes = new Map<string, number>()
  const skills = deps.library.visibleTo(caller, agentId, deps.catalog)
  const view = deps.templateView(caller, agentId)
  for (const skill of skills) {
    for (const file of walk(skill.dir)) {
      const rel = relative(skill.dir, file).split(sep).join('/')
      // A raw template is never shipped: rendered when it is the skill's file, dropped otherwise (a nested skill's too).
      if (basename(rel) === TEMPLATE_FILE && !(skill.template && rel === TEMPLATE_FILE)) continue
      if (rel === TEMPLATE_FILE) {
        // The front matter as loaded, then the body rendered for this caller.
        const head = skill.head
        const rendered = renderTemplate(skill.body, view, skill.bodyLine, deps.categories)
        if (!rendered.ok) throw new Error(`${skill.name}/SKILL.md.template:${rendered.line}: ${rendered.message}`)
        files.set(`${skill.name}/SKILL.md`, Buffer.from(head + rendered.text))
        modes.set(`${skill.name}/SKILL.md`, 0o644)
      } else {
        files.set(`${skill.name}/${rel}`, readFileSync(file))
        // Scripts stay executable.
        modes.set(`${skill.name}/${rel}`, statSync(file).mode & 0o755)
      }
    }
  }
  const sorted = new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b)))
  const hashes = Object.fromEntries([...sorted].map(([path, content]) => [path, sha256(content)]))
  return {
    files: sorted,
    modes,
    manifest: { agent: agentId, user: caller.name, skills: skills.map((s) => s.name).sort(), files: hashes },
  }
}

/**
 * Write the set into dir, touching only files whose content or mode differs on disk, and remove
 * files an earlier export wrote that are no longer in the set. Every path stays inside dir: the
 * manifest on disk is the runtime's to modify, so nothing in it is trusted.
 */
export function writeExport(set: ExportSet, dir: string): { written: string[]; removed: string[] } {
  const root = resolve(dir)
  const target = (path: string) => {
    const full = resolve(root, path)
    if (full === root || !isInside(root, full)) throw new Error(`refusing to write outside ${root}: ${path}`)
    return full
  }
  const manifestFile = join(root, MANIFEST)
  let previous: ExportSet['manifest'] | null = null
  try {
    previous = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as ExportSet['manifest']) : null
  } catch {
    previous = null
  }
  const written: string[] = []
  const removed: string[] = []
  for (const [path, content] of set.files) {
    const full = target(path)
    const mode = set.modes.get(path) ?? 0o644
    if (existsSync(full) && sha256(readFileSync(full)) === set.manifest.files[path] && (statSync(full).mode & 0o777) === mode) continue
    mkdirSync(dirname(full), { recursive: true })
    writeFileSync(full, content)
    chmodSync(full, mode)
    written.push(path)
  }
  for (const path of Object.keys(previous?.files ?? {})) {
    if (set.files.has(path)) continue
    let full: string
    try {
      full = target(path)
    } catch {
      continue
    }
    rmSync(full, { force: true })
    removed.push(path)
    removeEmptyParents(dirname(full), root)
  }
  const manifest = JSON.stringify(set.manifest, null, 2) + '\n'
  if (written.length || removed.length || !previous || JSON.stringify(previous, null, 2) + '\n' !== manifest) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(manifestFile, manifest)
    if (!written.length && !removed.length) written.push(MANIFEST)
  }
  return { written, removed }
}

/** The set as a tar stream (for HTTP). */
export function exportTar(set: ExportSet): tar.Pack {
  const pack = tar.pack()
  for (const [path, content] of set.files) pack.entry({ name: path, mode: set.modes.get(path) ?? 0o644 }, content)
  pack.entry({ name: MANIFEST, mode: 0o644 }, JSON.stringify(set.manifest, null, 2) + '\n')
  pack.finalize()
  return pack
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex')
}

function removeEmptyParents(dir: string, root: string): void {
  while (dir !== root && isInside(root, dir) && readdirSync(dir).length === 0) {
    rmSync(dir, { recursive: true })
    dir = dirname(dir)
  }
}

/** Regular files only: symlinks are not followed, so nothing outside the skill's folder is exported. */
function walk(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...walk(full))
    // Files with other hard links are never shipped, as they are never served.
    else if (entry.isFile() && !hasOtherLinks(statSync(full))) out.push(full)
  }
  return out
}
