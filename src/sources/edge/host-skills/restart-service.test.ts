import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir, tree } from '../../../test-support/databases.js'
import { runSkill } from '../../../test-support/run-skill.js'
import { restartService } from './restart-service.js'

// A stand-in systemctl, first on PATH: it logs each call and answers like a real one.
const log = join(tempDir(), 'calls')
const script = `#!/bin/sh
echo "$*" >> '${log}'
case "$*" in
  *restart\\ missing.service) echo 'Failed to restart missing.service: Unit missing.service not found.' >&2; exit 5 ;;
  show*crashy.service) echo failed ;;
  show*) echo active ;;
esac
`
const fake = tree({ systemctl: script }, ['systemctl'])
const path = process.env.PATH
beforeEach(() => {
  process.env.PATH = `${fake}:${path}`
})
afterEach(() => {
  process.env.PATH = path
})

const calls = () => readFileSync(log, 'utf8').trimEnd().split('\n')

describe('restart_service', () => {
  it('is a mutating host skill', () => {
    expect(restartService).toMatchObject({ class: 'mutating', scope: 'host', category: 'host' })
  })

  it('restarts the unit and reports its state afterwards', async () => {
    expect(restartService.unavailable!()).toBeNull()
    expect(await runSkill(restartService, { unit: 'nginx.service' })).toEqual({ unit: 'nginx.service', activeState: 'active' })
    expect(calls().slice(-2)).toEqual(['--no-ask-password restart nginx.service', 'show --property=ActiveState --value nginx.service'])
    // A unit that fails right after starting is a result, not an error.
    expect(await runSkill(restartService, { unit: 'crashy.service' })).toEqual({ unit: 'crashy.service', activeState: 'failed' })
  })

  it('names a failed restart', async () => {
    await expect(runSkill(restartService, { unit: 'missing.service' })).rejects.toThrow(
      'systemctl restart missing.service failed: it exited with 5: Failed to restart missing.service: Unit missing.service not found.',
    )
  })

  it('refuses what is not a unit name, before running anything', async () => {
    const before = calls().length
    for (const unit of ['foo; rm -rf /', '--force', 'nginx.service && reboot', '$(reboot)']) {
      await expect(runSkill(restartService, { unit })).rejects.toThrow('must be a systemd unit name')
    }
    expect(calls().length).toBe(before)
  })

  it('is unavailable when systemctl is not on PATH', async () => {
    process.env.PATH = ''
    const reason = "systemctl is not on this host's PATH: it has no systemd services to restart"
    expect(restartService.unavailable!()).toBe(reason)
    await expect(runSkill(restartService, { unit: 'nginx' })).rejects.toThrow(reason)
  })
})
