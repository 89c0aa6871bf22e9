import type { Command } from 'commander'

export function initCommand(program: Command): void {
  program
    .command('init')
    .description('scaffold skillplane in this project: a config, one code skill and one SKILL.md skill')
    .option('--force', 'overwrite files that exist')
    .option('--dir <dir>', 'the project folder', '.')
    .action(async (options: { force?: boolean; dir: string }) => (await import('../actions/init.js')).init(options))
}
