import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'
import { findOnPath, runProcess } from '../../../system/index.js'
import { unitName } from './unit-name.js'

const MAX_LINE = 4096
const MAX_OUTPUT = 16 * 1024 * 1024

const input = z.object({
  unit: unitName,
  lines: z.number().int().min(1).max(5000).default(100).describe('How many of the latest entries.'),
  since: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9 :+.-]+$/, 'must be a journalctl time such as "2024-05-01 10:00:00", "-1h" or "yesterday"')
    .optional()
    .describe('Only entries from this time on, in journalctl --since syntax: "2024-05-01 10:00:00", "-1h", "yesterday".'),
})

const output = z.object({
  lines: z.array(z.string()).describe(`Journal entries, oldest first, as "ISO-time host process[pid]: message" (cut to ${MAX_LINE} characters).`),
})

export const readJournal = defineSkill({
  key: 'read_journal',
  title: 'Read a service journal',
  description:
    "Read the latest systemd journal entries of one unit on this host (journalctl -u UNIT -n N), optionally only those since a time: a service's recent logs.",
  class: 'safe',
  scope: 'host',
  category: 'host',
  tags: ['logs', 'systemd'],
  timeoutMs: 30_000,
  input,
  output,
  unavailable: () => (journalctl() ? null : missing),
  run: async (args, ctx) => {
    const file = journalctl()
    if (!file) throw new Error(missing)
    const argv = ['-u', args.unit, '-n', String(args.lines), '--no-pager', '-o', 'short-iso']
    // One argument, so a time such as "-1h" can't be taken for an option.
    if (args.since) argv.push(`--since=${args.since}`)
    const result = await runProcess({ file, args: argv, cwd: '/', env: { PATH: process.env.PATH ?? '' }, maxOutputBytes: MAX_OUTPUT, signal: ctx.signal })
    const lines = result.stdout
      .split('\n')
      .filter((line) => line !== '' && line !== '-- No entries --')
      .map((line) => line.slice(0, MAX_LINE))
    return { lines }
  },
})

const missing = "journalctl is not on this host's PATH: there is no systemd journal to read"

function journalctl(): string | null {
  return findOnPath('journalctl', process.env.PATH ?? '')
}
