import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { isValidKey, KEY_RULE } from '../../../skill/index.js'
import { formatFinding } from '../../../sources/agent-skills/index.js'
import { openPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { CliError } from '../cli-error.js'
import { isInside } from '../../../system/index.js'

const SCRIPT = `#!/usr/bin/env node
// A skill pack: the input arrives as JSON on stdin; print one JSON value on stdout.
let text = ''
process.stdin.on('data', (chunk) => (text += chunk))
process.stdin.on('end', () => {
  const input = JSON.parse(text)
  process.stdout.write(JSON.stringify({ greeting: \`Hello, \${input.name}!\` }))
})
`

export function packsNew(name: string, o: { dir: string }): void {
  if (!isValidKey(name)) throw new CliError(`pack names are lower_snake skill keys (${KEY_RULE}), got "${name}"`)
  const folder = resolve(o.dir, name)
  if (existsSync(folder)) throw new CliError(`${folder} exists already`)
  mkdirSync(folder, { recursive: true })
  const manifest = {
    name,
    description: `Greet someone by name (scaffolded by skillplane packs new; describe what ${name} does)`,
    schema: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1 } } },
    output_schema: { type: 'object', required: ['greeting'], properties: { greeting: { type: 'string' } } },
    entry: 'run.mjs',
    // The environment is empty but for this list: PATH lets "#!/usr/bin/env node" find node.
    env_allow: ['PATH'],
    timeout_seconds: 30,
    class: 'safe',
    category: 'packs',
    tags: [],
  }
  writeFileSync(join(folder, 'skill.json'), JSON.stringify(manifest, null, 2) + '\n')
  writeFileSync(join(folder, 'run.mjs'), SCRIPT, { mode: 0o755 })
  console.log(`created ${folder}: skill.json and run.mjs`)
  console.log(`try: skillplane packs test ${folder} --input '{"name":"Ada"}'`)
}

export async function packsTest(path: string, o: GlobalOptions & { input: string }): Promise<void> {
  let input: unknown
  try {
    input = JSON.parse(o.input)
  } catch (error) {
    throw new CliError(`--input is not valid JSON: ${(error as Error).message}`)
  }
  const folder = resolve(path)
  if (!existsSync(join(folder, 'skill.json'))) throw new CliError(`no skill.json in ${folder}`)
  const plane = await openPlane(o, { packDirs: [folder] })
  try {
    const problems = plane.sources.packFindings.filter((f) => isInside(folder, f.file))
    for (const finding of problems) console.error(formatFinding(finding))
    const pack = plane.skills.list().find((s) => s.source === 'pack' && s.origin === join(folder, 'skill.json'))
    if (!pack) throw new CliError(`the pack in ${basename(folder)} did not load${problems.length ? '' : ' (is its name taken?)'}`)
    const envelope = await plane.invoke(pack.key, input, { caller: localAdmin() })
    console.log(JSON.stringify(envelope, null, 2))
    if (!envelope.ok) process.exitCode = 1
  } finally {
    await plane.close()
  }
}
