import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir, tree } from '../../../test-support/databases.js'
import { runSkill } from '../../../test-support/run-skill.js'
import { readJournal } from './read-journal.js'

// A stand-in journalctl, first on PATH: it records its argv and prints what a real one would.
const argvFile = join(tempDir(), 'argv')
const script = `#!/bin/sh
printf '%s\\n' "$@" > '${argvFile}'
case "$2" in
  quiet.service) echo '-- No entries --' ;;
  broken.service) echo 'Failed to add match: Invalid argument' >&2; exit 1 ;;
  *) echo '2024-05-01T10:00:00+0000 web nginx[12]: started'; echo '2024-05-01T10:00:01+0000 web nginx[12]: ready' ;;
esac
`
const fake = tree({ journalctl: script }, ['journalctl'])
const path = process.env.PATH
beforeEach(() => {
  process.env.PATH = `${fake}:${path}`
})
afterEach(() => {
  process.env.PATH = path
})

const argv = () => readFileSync(argvFile, 'utf8').trimEnd().split('\n')

describe('read_journal', () => {
  it('runs journalctl for the unit and returns its lines', async () => {
    expect(readJournal.unavailable!()).toBeNull()
    const result = await runSkill(readJournal, { unit: 'nginx.service' })
    expect(result).toEqual({ lines: ['2024-05-01T10:00:00+0000 web nginx[12]: started', '2024-05-01T10:00:01+0000 web nginx[12]: ready'] })
    expect(argv()).toEqual(['-u', 'nginx.service', '-n', '100', '--no-pager', '-o', 'short-iso'])
  })

  it('passes lines and since, the time as one argument', async () => {
    await runSkill(readJournal, { unit: 'getty@tty1.service', lines: 20, since: '-1h' })
    expect(argv()).toEqual(['-u', 'getty@tty1.service', '-n', '20', '--no-pager', '-o', 'short-iso', '--since=-1h'])
    await runSkill(readJournal, { unit: 'nginx', since: '2024-05-01 10:00:00' })
    expect(argv().at(-1)).toBe('--since=2024-05-01 10:00:00')
  })

  it('returns no lines when the unit has no entries, and names journalctl failures', async () => {
    expect(await runSkill(readJournal, { unit: 'quiet.service' })).toEqual({ lines: [] })
    await expect(runSkill(readJournal, { unit: 'broken.service' })).rejects.toThrow('it exited with 1: Failed to add match: Invalid argument')
  })

  it('refuses unit names and times that are not one', async () => {
    for (const unit of ['foo; rm -rf /', '-foo', '../etc/passwd', 'a b', '']) {
      await expect(runSkill(readJournal, { unit })).rejects.toThrow('must be a systemd unit name')
    }
    await expect(runSkill(readJournal, { unit: 'nginx', since: 'today; reboot' })).rejects.toThrow('must be a journalctl time')
  })

  it('is unavailable when journalctl is not on PATH', async () => {
    process.env.PATH = tempDir()
    const reason = "journalctl is not on this host's PATH: there is no systemd journal to read"
    expect(readJournal.unavailable!()).toBe(reason)
    await expect(runSkill(readJournal, { unit: 'nginx' })).rejects.toThrow(reason)
    process.env.PATH = ''
    expect(readJournal.unavailable!()).toBe(reason)
  })
})
