import { realpathSync, statSync, readFileSync, type Stats } from 'node:fs'
import { basename, isAbsolute, join, relative, resolve } from 'node:path'
import { z } from 'zod'
import { defineSkill, type DefinedSkill, type Caller, type SkillContext } from '../../skill/index.js'
import type { ActivationRepository } from '../../store/index.js'
import type { CatalogView, InstructionLibrary, LibrarySkill } from './instruction-library.js'
import { escapeXml } from './escape-xml.js'
import { escapeWrapperTags } from './escape-wrapper-tags.js'
import { resourceContent } from './resource-content.js'
import { scriptCommand } from './script-command.js'
import { TEMPLATE_FILE } from './find-skill-dirs.js'
import { listSkillFiles } from './list-skill-files.js'
import { skillsPrompt } from './skills-prompt.js'
import { runProcess, type ProcessGroups } from '../../system/index.js'
import { SkillError } from '../../runtime/index.js'
import { renderTemplate, type TemplateView } from './render-template.js'
import { hasOtherLinks, isInside } from '../../system/index.js'
import { didYouMean } from '../../text/index.js'

export interface InstructionToolOptions {
  library: InstructionLibrary
  catalog: () => CatalogView
  activations: () => ActivationRepository
  /** Environment variables passed to scripts besides a minimal PATH. */
  scriptEnv: readonly string[]
  scriptTimeoutMs: number
  maxResourceBytes: number
  maxScriptOutputBytes: number
  /** Agents that see the tools: those bound to any instruction skill. */
  agents: string[]
  /** What a SKILL.md.template is rendered with for this call's caller and agent. */
  templateView: (ctx: SkillContext) => TemplateView
  /** Categories of executable skills, for denied_actions.CATEGORY. */
  categories: () => string[]
  /** Where running script groups are recorded, so a crashed manager's are killed at the next start. */
  processGroups?: ProcessGroups
}

const SCRIPT_PATH = '/usr/local/bin:/usr/bin:/bin'
/** The keys the tools are registered under: no other source may take them. */
export const INSTRUCTION_TOOL_KEYS = ['list_skills', 'activate_skill', 'read_skill_resource', 'run_skill_script']
// A NUL can't be in a path or an argument a process gets: say so before anything runs.
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => !value.includes('\0'), 'must not contain a NUL character')

/** The tools through which agents use instruction skills: gated, audited and bindable like any skill. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- four skills with four input schemas in one list
export function instructionTools(options: InstructionToolOptions): DefinedSkill<any, any>[] {
  const { library } = options
  const visible = (ctx: SkillContext) => library.visibleTo(ctx.caller, ctx.agent, options.catalog())
  // A skill the caller may not see is reported exactly like one that doesn't exist.
  const find = (ctx: SkillContext, name: string): LibrarySkill => {
    const shown = visible(ctx)
    const skill = shown.find((s) => s.name === name)
    if (!skill) {
      const hint = didYouMean(
        name,
        shown.map((s) => s.name),
      )
      throw new SkillError('not_found', `no skill named "${name}" is available${hint}; list_skills shows the ones that are`)
    }
    return skill
  }
  const common = { category: 'instructions', tags: ['agent-skills'], agents: options.agents }
  // What the model sees: the skill argument is an enum of the names this caller may use.
  const names = (view: { caller: Caller; agent: string | null }) => library.visibleTo(view.caller, view.agent, options.catalog()).map((s) => s.name)
  // An empty enum is invalid JSON Schema: with nothing to name, say so instead.
  const nameSchema = (view: { caller: Caller; agent: string | null }) => {
    const list = names(view)
    return list.length ? { type: 'string', enum: list } : { type: 'string', description: 'no skills are available to you' }
  }
  const schemaWith = (fields: Record<string, unknown>, required: string[]) => ({ type: 'object', properties: fields, required, additionalProperties: false })

  // What is read from disk while a skill is served must still be what was installed (installed skills).
  const checked = (file: string, content: Buffer): Buffer => {
    const problem = library.fileCheck(file, content)
    if (problem) throw new SkillError('denied', problem)
    return content
  }

  return [
    defineSkill({
      key: 'list_skills',
      title: 'List skills',
      description: 'List the instruction skills available to you, with what each is for. Activate one with activate_skill before following it.',
      class: 'safe',
      ...common,
      output: z.object({ catalog: z.string(), skills: z.array(z.object({ name: z.string(), description: z.string() })) }),
      run: (_input, ctx) => {
        const skills = visible(ctx).map((s) => ({ name: s.name, description: library.description(s, options.catalog()) }))
        return { catalog: skillsPrompt(skills), skills }
      },
    }),
    defineSkill({
      key: 'activate_skill',
      title: 'Activate a skill',
      description:
        'Load the full instructions of one skill by name. Its resources are listed, not included: read them with read_skill_resource when the instructions say so.',
      class: 'safe',
      ...common,
      input: z.object({ name: z.string().min(1).max(64) }),
      inputSchemaFor: (view) => schemaWith({ name: nameSchema(view) }, ['name']),
      output: z.object({ content: z.string(), alreadyActive: z.boolean() }),
      run: async ({ name }, ctx) => {
        const skill = find(ctx, name)
        let body = skill.body
        if (skill.template) {
          const rendered = renderTemplate(skill.body, options.templateView(ctx), skill.bodyLine, options.categories())
          if (!rendered.ok) throw new Error(`${skill.name}/SKILL.md.template:${rendered.line}: ${rendered.message}`)
          body = rendered.text
        }
        // Recorded only once the content exists, per caller: conversation ids are the client's choice.
        if (ctx.conversationId) {
          const first = await options.activations().activate({
            conversation_id: ctx.conversationId,
            skill_name: skill.name,
            caller_id: ctx.caller.id,
            call_id: ctx.callId,
            activated_at: new Date().toISOString(),
          })
          if (!first) {
            return {
              content: `<skill_note name="${escapeXml(skill.name)}">Already active in this conversation: follow the instructions loaded earlier.</skill_note>`,
              alreadyActive: true,
            }
          }
        }
        const files = listSkillFiles(skill.dir)
        const resources = files.length ? `\n<skill_resources>\n${files.map((f) => `  <file>${escapeXml(f)}</file>`).join('\n')}\n</skill_resources>` : ''
        return {
          // The server's own path is never shown: files are named relative to the skill's folder.
          content: `<skill_content name="${escapeXml(skill.name)}">\n${escapeWrapperTags(body.trim())}${resources}\n</skill_content>`,
          alreadyActive: false,
        }
      },
    }),
    defineSkill({
      key: 'read_skill_resource',
      title: 'Read a skill resource',
      description:
        "Read one file from an active skill's folder (for example references/checklist.md), by its path inside that folder: text as content, binary files (images, fonts, PDFs) base64-encoded as blob.",
      class: 'safe',
      ...common,
      input: z.object({ skill: z.string().min(1).max(64), path: text(1024).pipe(z.string().min(1)) }),
      inputSchemaFor: (view) => schemaWith({ skill: nameSchema(view), path: { type: 'string', minLength: 1 } }, ['skill', 'path']),
      // One object with content or blob (not a union), so MCP clients get an object output schema.
      output: z.object({ path: z.string(), bytes: z.number().int(), mimeType: z.string(), content: z.string().optional(), blob: z.string().optional() }),
      run: ({ skill: name, path }, ctx) => {
        const skill = find(ctx, name)
        const file = confine(skill.dir, path)
        // A template is rendered per caller on activation; its raw form (a nested skill's too) is never handed out.
        if (basename(file) === TEMPLATE_FILE) throw new SkillError('denied', 'the raw SKILL.md.template is not served: activate the skill instead')
        const stat = fileStat(file, path)
        if (stat.size > options.maxResourceBytes)
          throw new SkillError('invalid_input', `"${path}" is ${stat.size} bytes; resources are capped at ${options.maxResourceBytes}`)
        return resourceContent(relative(skill.dir, file), checked(file, readFileSync(file)))
      },
    }),
    defineSkill({
      key: 'run_skill_script',
      title: 'Run a skill script',
      description:
        "Run a script from an active skill's scripts/ folder with arguments, in the skill's folder (.py, .sh, .js and .ts run through their interpreter). Changes things, so it may need approval.",
      class: 'mutating',
      timeoutMs: options.scriptTimeoutMs,
      ...common,
      input: z.object({ skill: z.string().min(1).max(64), script: text(256).pipe(z.string().min(1)), args: z.array(text(4096)).max(64).default([]) }),
      inputSchemaFor: (view) =>
        schemaWith({ skill: nameSchema(view), script: { type: 'string' }, args: { type: 'array', items: { type: 'string' } } }, ['skill', 'script']),
      output: z.object({ exitCode: z.number().int(), stdout: z.string(), stderr: z.string() }),
      run: ({ skill: name, script, args }, ctx) => {
        const skill = find(ctx, name)
        const scripts = join(skill.dir, 'scripts')
        const file = confine(skill.dir, script.replace(/^scripts\//, ''), 'scripts')
        const shown = `scripts/${relative(scripts, file)}`
        fileStat(file, shown)
        checked(file, readFileSync(file))
        const command = scriptCommand(file, { shown, searchPath: SCRIPT_PATH })
        const env: Record<string, string> = { PATH: SCRIPT_PATH }
        for (const name of options.scriptEnv) if (process.env[name] !== undefined) env[name] = process.env[name]!
        return runProcess({
          file: command.file,
          args: [...command.args, ...args],
          cwd: skill.dir,
          env,
          maxOutputBytes: options.maxScriptOutputBytes,
          signal: ctx.signal,
          groups: options.processGroups,
        })
      },
    }),
  ]
}

/** A regular file with a single name, or a refusal naming it as the caller did. */
function fileStat(file: string, shown: string): Stats {
  const stat = statSync(file)
  if (!stat.isFile()) throw new SkillError('invalid_input', `"${shown}" is not a file`)
  if (hasOtherLinks(stat))
    throw new SkillError('invalid_input', `"${shown}" has other hard links, so it may be a file from outside the skill's folder; it is not served`)
  return stat
}

/**
 * A path inside the skill's folder (or a subfolder of it), after resolving symlinks. The folder
 * must still be the real one checked at load time, and a path that leaves it is refused before
 * anything is looked up, so refusals say nothing about the host's files.
 */
function confine(skillDir: string, path: string, within = ''): string {
  // Even one leading inside the folder: callers name files relative to it, never by a server path.
  if (isAbsolute(path)) throw new SkillError('invalid_input', `"${path}" is an absolute path; name the file relative to the skill's folder`)
  let root: string
  try {
    root = realpathSync(join(skillDir, within))
  } catch {
    throw new SkillError('not_found', `"${join(within, path)}" does not exist in the skill's folder`)
  }
  if (realpathSync(skillDir) !== skillDir || !isInside(skillDir, root))
    throw new SkillError('denied', `the skill's ${within || 'folder'} is no longer inside the folder it was loaded from`)
  const lexical = resolve(root, path)
  if (!isInside(root, lexical)) throw new SkillError('invalid_input', `"${path}" is outside the skill's folder and can't be used`)
  let real: string
  try {
    real = realpathSync(lexical)
  } catch {
    throw new SkillError('not_found', `"${path}" does not exist in the skill's folder`)
  }
  if (!isInside(root, real)) throw new SkillError('invalid_input', `"${path}" is outside the skill's folder and can't be used`)
  return real
}
