import { accessSync, constants } from 'node:fs'
import { createRequire } from 'node:module'
import { extname } from 'node:path'
import { pathToFileURL } from 'node:url'
import { SkillError } from '../../runtime/index.js'
import { findOnPath } from '../../system/index.js'

export interface ScriptCommand {
  /** What is executed: the script itself, or its interpreter. */
  file: string
  /** Arguments before the caller's: for an interpreter, its options and the script. */
  args: string[]
}

// Interpreters looked up on the scripts' PATH, in order of preference.
const ON_PATH: Record<string, string[]> = { '.py': ['python3'], '.sh': ['bash', 'sh'] }
const NODE = ['.js', '.mjs', '.cjs']
const RUNNABLE = '.py, .sh, .js, .mjs, .cjs and .ts'

/**
 * How a script under a skill's folder runs. An executable file runs directly (its #! line picks
 * the interpreter); any other through the interpreter of its extension, since most published
 * skills ship scripts without the run bit.
 */
export function scriptCommand(file: string, options: { shown: string; searchPath: string }): ScriptCommand {
  try {
    accessSync(file, constants.X_OK)
    return { file, args: [] }
  } catch {
    // Not executable: run through an interpreter, below.
  }
  const extension = extname(file).toLowerCase()
  const names = ON_PATH[extension]
  if (names) {
    const interpreter = names.map((name) => findOnPath(name, options.searchPath)).find((found) => found !== null)
    if (!interpreter) {
      throw new SkillError('unavailable', `${options.shown} can't run: its interpreter ${names.join(' or ')} is not installed on this server`)
    }
    return { file: interpreter, args: [file] }
  }
  // Node is the one running skillplane: always there, and a version skillplane's tsx supports.
  if (NODE.includes(extension)) return { file: process.execPath, args: [file] }
  if (extension === '.ts') {
    const tsx = tsxLoader()
    if (!tsx)
      throw new SkillError(
        'unavailable',
        `${options.shown} is TypeScript, which needs tsx, and tsx is not installed with skillplane: ship it as JavaScript, or make it executable with a #! line`,
      )
    return { file: process.execPath, args: ['--import', tsx, file] }
  }
  throw new SkillError('invalid_input', `${options.shown} is not executable, and only ${RUNNABLE} scripts run through an interpreter`)
}

/** tsx's loader from skillplane's own dependencies (Node 20 can't strip types itself), or null. */
function tsxLoader(): string | null {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  } catch {
    return null
  }
}
