import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { CliError } from '../cli-error.js'
import { INIT_FILES, INIT_NEXT_STEPS } from '../init-files.js'

export function init(options: { force?: boolean; dir: string }): void {
  const root = resolve(options.dir)
  const paths = Object.keys(INIT_FILES)
  const existing = paths.filter((path) => existsSync(join(root, path)))
  // All or nothing: a half-written scaffold is worse than none.
  if (existing.length > 0 && !options.force) {
    throw new CliError(
      `${existing.map((p) => join(relative(process.cwd(), root) || '.', p)).join(', ')} already exist${existing.length === 1 ? 's' : ''}: pass --force to overwrite`,
    )
  }
  for (const path of paths) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), INIT_FILES[path]!)
    console.log(`${existing.includes(path) ? '~' : '+'} ${path}`)
  }
  console.log(`\n${INIT_NEXT_STEPS}`)
}
