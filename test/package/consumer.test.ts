import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../src/test-support/databases.js'

const ROOT = join(import.meta.dirname, '../..')

/** Run a command in the project the way a user types it, with npm and npx from PATH. */
function sh(cwd: string, command: string, args: string[], timeout = 240_000) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SKILLPLANE_LOG_LEVEL: 'warn',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }
  for (const name of ['SKILLPLANE_DATABASE_URL', 'SKILLPLANE_CONFIG', 'SKILLPLANE_DATA_DIR']) delete env[name]
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env, timeout })
  // npm's own warnings about this machine's npm config are not skillplane's output.
  const stderr = result.stderr
    .split('\n')
    .filter((line) => !/^npm warn /i.test(line))
    .join('\n')
  // A command cut off by its timeout says so, rather than passing for npm's own failure.
  return { code: result.status, stdout: result.stdout, stderr: result.signal ? `${stderr}\n(killed by ${result.signal} after ${timeout} ms)` : stderr }
}

describe('skillplane as a dependency of another project', () => {
  // Slow (npm compiles better-sqlite3 from source in the fresh project): one test, a long deadline.
  it('installs the packed tarball in a fresh project, scaffolds with init and runs the scaffold', { timeout: 900_000 }, () => {
    // What a newcomer installs: the tarball alone, with its own dependencies, not a link to this checkout.
    // --ignore-scripts: dist/ is built already (pretest), and rebuilding it here would race tests that run it.
    const packDir = tempDir('skillplane-pack-')
    const packed = sh(ROOT, 'npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir])
    expect(packed.code, packed.stderr).toBe(0)
    const tarball = join(packDir, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename)
    const project = tempDir('skillplane-consumer-')
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
    // The dependencies come from npm's cache (filled by the checkout's npm ci), the registry only for what is missing.
    const install = sh(project, 'npm', ['install', '--prefer-offline', tarball], 720_000)
    // npm 10 and later say "npm error", older ones "npm ERR!".
    expect(install.stderr.split('\n').filter((l) => /^npm (error|ERR!)/.test(l))).toEqual([])
    expect(install.code, install.stderr).toBe(0)
    expect(lstatSync(join(project, 'node_modules/skillplane')).isSymbolicLink()).toBe(false)

    const init = sh(project, 'npx', ['--no-install', 'skillplane', 'init'])
    expect(init.stderr).toBe('')
    expect(init.code).toBe(0)
    expect(init.stdout).toContain('+ skillplane.config.ts\n+ skills/greet.ts\n+ .agents/skills/team-conventions/SKILL.md\n')
    expect(init.stdout).toContain('npx skillplane serve')
    // Never over a project's own files without being asked.
    writeFileSync(join(project, 'skills/greet.ts'), '// mine\n' + readFileSync(join(project, 'skills/greet.ts'), 'utf8'))
    const again = sh(project, 'npx', ['--no-install', 'skillplane', 'init'])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(
      'skillplane: skillplane.config.ts, skills/greet.ts, .agents/skills/team-conventions/SKILL.md already exist: pass --force to overwrite\n',
    )
    expect(readFileSync(join(project, 'skills/greet.ts'), 'utf8')).toMatch(/^\/\/ mine\n/)

    const validate = sh(project, 'npx', ['--no-install', 'skillplane', 'skills', 'validate', '.agents/skills'])
    expect(validate.stdout).toBe('1 skill checked: 0 errors, 0 warnings\n')
    expect(validate.code).toBe(0)
    const list = sh(project, 'npx', ['--no-install', 'skillplane', 'skills', 'list', '--json'])
    expect(list.stderr).toBe('')
    expect(JSON.parse(list.stdout).map((s: { key: string }) => s.key)).toEqual(expect.arrayContaining(['greet', 'team-conventions', 'activate_skill']))
    const invoked = sh(project, 'npx', ['--no-install', 'skillplane', 'invoke', 'greet', '--input', '{"name":"Ada"}'])
    expect(invoked.code).toBe(0)
    expect(JSON.parse(invoked.stdout)).toMatchObject({ ok: true, data: { message: 'Hello, Ada!' } })
    expect(existsSync(join(project, '.skillplane', 'skillplane.db'))).toBe(true)
  })

  it('packs the built package, its CLI and docs, and nothing of the sources or tests', () => {
    const packed = sh(ROOT, 'npm', ['pack', '--dry-run', '--json', '--ignore-scripts'])
    expect(packed.code, packed.stderr).toBe(0)
    const files: string[] = JSON.parse(packed.stdout)[0].files.map((f: { path: string }) => f.path)
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/surfaces/cli/main.js']))
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f))).toEqual([])
    expect(files.filter((f) => /\.test\.|test-support/.test(f))).toEqual([])
  })
})
