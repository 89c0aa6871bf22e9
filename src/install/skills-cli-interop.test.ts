import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir, tree } from '../test-support/databases.js'
import { runCli } from '../test-support/run-cli.js'

// skills-lock.json as the `skills` CLI (skills 1.7.4, vercel-labs/skills) writes it for this project's
// vendor/skills folder: writeLocalLock (src/local-lock.ts) sorts skills by name and writes
// JSON.stringify(lock, null, 2) and a newline; projectLockEntry orders source, sourceUrl (git and
// GitLab only), ref, sourceType, skillPath (none for a local folder), computedHash; a local source
// is written relative to the project, `./vendor/skills`.
const GOLDEN = join(import.meta.dirname, 'fixtures/skills-cli-project-lock.json')

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nSee notes.md.\n`

/**
 * The `skills` CLI's computeSkillFolderHash, rewritten here from its source (vercel-labs/skills
 * src/local-lock.ts, unchanged in skills 1.7.4): readdir with file types, recursing into folders
 * other than .git and node_modules, keeping entries whose isFile() is true (a symlink's is not),
 * paths relative with `/` sorted by localeCompare, then one SHA-256 of each path followed by its content.
 */
async function cliFolderHash(dir: string): Promise<string> {
  const files: Array<{ path: string; content: Buffer }> = []
  const collect = async (current: string): Promise<void> => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== '.git' && entry.name !== 'node_modules') await collect(full)
      } else if (entry.isFile()) files.push({ path: relative(dir, full).split('\\').join('/'), content: await readFile(full) })
    }
  }
  await collect(dir)
  files.sort((a, b) => a.path.localeCompare(b.path))
  const hash = createHash('sha256')
  for (const file of files) hash.update(file.path).update(file.content)
  return hash.digest('hex')
}

/** A project with a vendored skill folder holding symlinks: to a file, to a folder, and one out of the skill. */
function project() {
  const dir = tree({
    LICENSE: 'MIT\n',
    'vendor/skills/notes/SKILL.md': skillMd('notes', 'Keeps meeting notes. Use after a meeting.'),
    'vendor/skills/notes/templates/notes.md': '## Decisions\n',
  })
  symlinkSync('templates/notes.md', join(dir, 'vendor/skills/notes/notes.md'))
  symlinkSync('templates', join(dir, 'vendor/skills/notes/shared'))
  symlinkSync('../../../LICENSE', join(dir, 'vendor/skills/notes/LICENSE'))
  return dir
}

/** A git repository with one skill in skills/, committed. */
function gitRepo(): { dir: string; url: string } {
  const dir = tree({
    'skills/triage/SKILL.md': skillMd('triage', 'Sorts incoming issues. Use on a new issue.'),
    'skills/triage/templates/notes.md': '## Labels\n',
  })
  symlinkSync('templates/notes.md', join(dir, 'skills/triage/notes.md'))
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: dir })
  git('init', '-q')
  git('add', '-A')
  git('commit', '-q', '-m', 'first')
  return { dir, url: `file://${dir}` }
}

describe('skills-lock.json shared with the skills CLI', () => {
  it('writes the entry the skills CLI writes, byte for byte, and installs a symlink as the CLI does: a copy, left out of computedHash', async () => {
    const dir = project()
    const location = { dataDir: tempDir() }
    const added = runCli(location, ['skills', 'add', './vendor/skills', '--project'], { cwd: dir })
    expect(added.stderr).toBe('')
    expect(added.code).toBe(0)
    expect(readFileSync(join(dir, 'skills-lock.json'), 'utf8')).toBe(readFileSync(GOLDEN, 'utf8'))
    const lock = JSON.parse(readFileSync(GOLDEN, 'utf8')) as { skills: { notes: { computedHash: string } } }
    expect(lock.skills.notes.computedHash).toBe(await cliFolderHash(join(dir, 'vendor/skills/notes')))

    const installed = join(dir, '.agents/skills/notes')
    expect(lstatSync(join(installed, 'notes.md')).isFile()).toBe(true)
    expect(readFileSync(join(installed, 'notes.md'), 'utf8')).toBe('## Decisions\n')
    expect(lstatSync(join(installed, 'shared')).isDirectory()).toBe(true)
    expect(readFileSync(join(installed, 'shared/notes.md'), 'utf8')).toBe('## Decisions\n')
    // A link out of the skill is not followed: the CLI would copy whatever it points at.
    expect(added.stdout).toContain('notes/LICENSE:1: warning: a symlink that leads outside the folder (to ../../../LICENSE); not fetched\n')
    expect(() => lstatSync(join(installed, 'LICENSE'))).toThrow(/ENOENT/)
    expect(added.stdout).toContain('+  notes  notes/SKILL.md  new, 4 files\n')

    // Nothing flips: the same add finds it installed, and the lockfile is not written again.
    const again = runCli(location, ['skills', 'add', './vendor/skills', '--project'], { cwd: dir })
    expect(again.stdout).toContain('=  notes  notes/SKILL.md  unchanged\n')
    expect(readFileSync(join(dir, 'skills-lock.json'), 'utf8')).toBe(readFileSync(GOLDEN, 'utf8'))
  })

  it('leaves a lockfile and skill folders the skills CLI wrote as they are: git sources with sourceUrl, its own fields, its copies of symlinks', async () => {
    const dir = project()
    const repo = gitRepo()
    // As the CLI installs: each skill folder copied with its symlinks dereferenced (cp -L), links out of the skill left aside here.
    mkdirSync(join(dir, '.agents/skills'), { recursive: true })
    execFileSync('cp', ['-RL', join(repo.dir, 'skills/triage'), join(dir, '.agents/skills/triage')])
    execFileSync('rm', [join(dir, 'vendor/skills/notes/LICENSE')])
    execFileSync('cp', ['-RL', join(dir, 'vendor/skills/notes'), join(dir, '.agents/skills/notes')])
    const text =
      JSON.stringify(
        {
          version: 1,
          skills: {
            notes: { source: './vendor/skills', sourceType: 'local', computedHash: await cliFolderHash(join(dir, 'vendor/skills/notes')) },
            triage: {
              source: repo.url,
              sourceUrl: repo.url,
              sourceType: 'git',
              skillPath: 'skills/triage/SKILL.md',
              computedHash: await cliFolderHash(join(repo.dir, 'skills/triage')),
              subagents: ['', 'reviewer'],
            },
          },
        },
        null,
        2,
      ) + '\n'
    writeFileSync(join(dir, 'skills-lock.json'), text)
    const location = { dataDir: tempDir() }

    const installed = runCli(location, ['skills', 'install', '--project'], { cwd: dir })
    expect(installed.stderr).toBe('')
    expect(installed.stdout).toContain('nothing to install: all 2 in skills-lock.json are installed already')
    const fromGit = runCli(location, ['skills', 'add', repo.url, '--project'], { cwd: dir })
    expect(fromGit.stdout).toContain('=  triage  skills/triage/SKILL.md  unchanged\n')
    const fromFolder = runCli(location, ['skills', 'add', './vendor/skills', '--project'], { cwd: dir })
    expect(fromFolder.stdout).toContain('=  notes  notes/SKILL.md  unchanged\n')
    const updated = runCli(location, ['skills', 'update', '--project', '--yes'], { cwd: dir })
    expect(updated.stdout).toContain('everything is up to date\n')
    expect(readFileSync(join(dir, 'skills-lock.json'), 'utf8')).toBe(text)
  })
})
