import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../test-support/databases.js'
import { CLI_MAIN, runCli, runCliAsync } from '../../test-support/run-cli.js'

// The package as a config outside this checkout imports it once installed.
const PACKAGE = join(CLI_MAIN, '../../../index.js')

describe('the CLI names what was mistyped and suggests what was meant', () => {
  it('suggests the command, subcommand or option meant, and exits non-zero', async () => {
    const location = { dataDir: tempDir() }
    const runs = await Promise.all(
      [['skils', 'list'], ['skills', 'lst'], ['skills', 'list', '--jsn'], ['--dat-dir', 'x', 'skills', 'list'], ['edges', 'enrol'], ['zzzz']].map((args) =>
        runCliAsync(location, args),
      ),
    )
    expect(runs.map((run) => ({ code: run.code, stderr: run.stderr, stdout: run.stdout }))).toEqual(
      [
        "error: unknown command 'skils'\n(Did you mean skills?)",
        "error: unknown command 'lst'\n(Did you mean list?)",
        "error: unknown option '--jsn'\n(Did you mean --json?)",
        "error: unknown option '--dat-dir'\n(Did you mean --data-dir?)",
        "error: unknown command 'enrol'\n(Did you mean enroll?)",
        "error: unknown command 'zzzz'",
      ].map((message) => ({ code: 1, stderr: `${message}\n(run with --help for usage)\n`, stdout: '' })),
    )
  })

  it('refuses a config with a misspelt field in one line naming it and the field meant', () => {
    const dir = tempDir('skillplane-typo-config-')
    const location = { dataDir: join(dir, 'data') }
    const config = (name: string, body: string) => {
      writeFileSync(join(dir, name), body)
      return join(dir, name)
    }
    const topLevel = config('top.config.mjs', 'export default { httpSkill: [] }\n')
    expect(runCli(location, ['skills', 'list'], { config: topLevel })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `skillplane: config ${topLevel}: unknown field "httpSkill" (did you mean "httpSkills"?)\n`,
    })
    const entry = config(
      'entry.config.mjs',
      `export default { httpSkills: [{ key: 'wipe_disk', description: 'Wipe a disk', method: 'POST', url: 'https://ops.example.com/wipe', clas: 'dangerous' }] }\n`,
    )
    expect(runCli(location, ['skills', 'list'], { config: entry })).toMatchObject({
      code: 1,
      stderr: `skillplane: config ${entry}: httpSkills[0]: unknown field "clas" (did you mean "class"?)\n`,
    })
  })

  it('refuses a config whose code skill misspells class or has none, naming the skill: never running it as safe', () => {
    const dir = tempDir('skillplane-typo-skill-')
    const location = { dataDir: join(dir, 'data') }
    const skillFile = (name: string, fields: string) => {
      writeFileSync(
        join(dir, `${name}.mjs`),
        `import { defineSkill } from ${JSON.stringify(PACKAGE)}\n` +
          `export const skill = defineSkill({ key: '${name}', description: 'Wipe a disk', ${fields} run: () => ({ wiped: true }) })\n`,
      )
      const config = join(dir, `${name}.config.mjs`)
      writeFileSync(config, `import { skill } from './${name}.mjs'\nexport default { skills: [skill] }\n`)
      return config
    }
    const typo = skillFile('wipe_disk', `clas: 'dangerous',`)
    const typoRun = runCli(location, ['invoke', 'wipe_disk', '--input', '{}'], { config: typo, cwd: dir })
    expect(typoRun).toMatchObject({ code: 1, stdout: '' })
    expect(typoRun.stderr).toBe(
      `skillplane: cannot load config ${typo}: defineSkill "wipe_disk" (wipe_disk.mjs:2): unknown field "clas" (did you mean "class"?)\n`,
    )
    const none = skillFile('drop_table', '')
    expect(runCli(location, ['invoke', 'drop_table', '--input', '{}'], { config: none, cwd: dir })).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        `skillplane: cannot load config ${none}: defineSkill "drop_table" (drop_table.mjs:2): class is required: ` +
        'declare "safe" (reads only), "mutating" (changes state) or "dangerous" (destructive)\n',
    })
  })
})
