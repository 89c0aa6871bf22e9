import type { Command } from 'commander'

export function packsCommand(program: Command): void {
  const packs = program.command('packs').description('skill packs: executables that become skills')

  packs
    .command('new <name>')
    .description('scaffold a working pack (skill.json and a small Node script) in a new folder')
    .option('--dir <dir>', 'where to create the pack folder', '.')
    .action(async (name: string, o: { dir: string }) => (await import('../actions/packs.js')).packsNew(name, o))

  packs
    .command('test <path>')
    .description('run one pack through the pipeline (validation, policy, audit) as the local admin')
    .option('--input <json>', 'the input as JSON', '{}')
    .action(async (path: string, _o: unknown, command: Command) => (await import('../actions/packs.js')).packsTest(path, command.optsWithGlobals()))
}
