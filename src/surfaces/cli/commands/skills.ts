import type { Command } from 'commander'

export function skillsCommand(program: Command): void {
  const skills = program.command('skills').description('list and inspect skills')

  skills
    .command('list')
    .description('list every registered skill with its class, scope, source and bindings')
    .option('--class <class>', 'only this class (safe, mutating, dangerous)')
    .option('--category <category>', 'only this category')
    .option('--tag <tag>', 'only skills with this tag')
    .option('--source <source>', 'only this source (code, agent-skill, pack, mcp, http, edge)')
    .option('--agent <agent>', 'only skills bound to this agent (name, alias or id)')
    .option('--scope <scope>', 'only this scope (manager, host)')
    .option('--available', 'only skills that could run now')
    .option('--q <text>', 'only skills with this text in their key, title or description')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/skills.js')).skillsList(command.optsWithGlobals()))

  skills
    .command('search <query>')
    .description('find the skills that fit a task in plain words (discover_skills), best first')
    .option('--limit <n>', 'most results (default 5)', (v) => Number(v))
    .option('--max-tokens <n>', 'cut the list to about this many tokens', (v) => Number(v))
    .option('--agent <agent>', 'what this agent may use (name, alias or id)')
    .option('--exclude-bound', "with --agent: what it could use but isn't bound to yet")
    .option('--json', 'print { results, omitted } as JSON')
    .action(async (query: string, _o: unknown, command: Command) => (await import('../actions/skills.js')).skillsSearch(query, command.optsWithGlobals()))

  skills
    .command('show <key>')
    .description('show one skill with its schemas')
    .option('--json', 'print JSON')
    .action(async (key: string, _o: unknown, command: Command) => (await import('../actions/skills.js')).skillsShow(key, command.optsWithGlobals()))

  skills
    .command('validate <paths...>')
    .description('check SKILL.md folders strictly against the Agent Skills specification (and their links)')
    .option('--json', 'print { skills, errors, warnings, findings } as JSON')
    .action(async (paths: string[], o: { json?: boolean }) => (await import('../actions/skills-validate.js')).skillsValidate(paths, o))

  skills
    .command('export')
    .description('write the instruction-skill files an agent should have (templates rendered) to a folder, with a manifest')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .option('--user <key>', 'render as this user (key name or id); default: as the agent itself')
    .requiredOption('--out <dir>', 'the folder to write')
    .action(async (_o: unknown, command: Command) => (await import('../actions/skills.js')).skillsExport(command.optsWithGlobals()))

  skills
    .command('share <name>')
    .description('say who may see a skill: everyone, named agents, or named users (API key names); admins always see it')
    .option('--all', 'everyone (the default)')
    .option('--agent <agents...>', 'only these agents (names, aliases or ids)')
    .option('--user <users...>', 'only these users (API key names)')
    .option('--json', 'print { key, sharing, notes } as JSON')
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/skills.js')).skillsShare(name, command.optsWithGlobals()))
}
