import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'
import { findOnPath, runProcess } from '../../../system/index.js'
import { unitName } from './unit-name.js'

const input = z.object({ unit: unitName })

const output = z.object({
  unit: z.string(),
  activeState: z.string().describe("The unit's ActiveState after the restart: active, activating, failed..."),
})

export const restartService = defineSkill({
  key: 'restart_service',
  title: 'Restart a service',
  description: 'Restart one systemd unit on this host (systemctl restart UNIT) and report its state afterwards (active, activating, failed...).',
  class: 'mutating',
  scope: 'host',
  category: 'host',
  tags: ['systemd', 'services'],
  // systemd gives a unit 90 s to start by default.
  timeoutMs: 120_000,
  input,
  output,
  unavailable: () => (systemctl() ? null : missing),
  run: async (args, ctx) => {
    const file = systemctl()
    if (!file) throw new Error(missing)
    const run = (argv: string[]) =>
      runProcess({ file, args: argv, cwd: '/', env: { PATH: process.env.PATH ?? '' }, maxOutputBytes: 64 * 1024, signal: ctx.signal })
    // --no-ask-password: no one is there to answer a polkit prompt.
    await run(['--no-ask-password', 'restart', args.unit]).catch((error: Error) => {
      throw new Error(`systemctl restart ${args.unit} failed: ${error.message}`)
    })
    // `show` rather than `is-active`, which exits non-zero for every state but active.
    const state = await run(['show', '--property=ActiveState', '--value', args.unit])
    return { unit: args.unit, activeState: state.stdout.trim() }
  },
})

const missing = "systemctl is not on this host's PATH: it has no systemd services to restart"

function systemctl(): string | null {
  return findOnPath('systemctl', process.env.PATH ?? '')
}
