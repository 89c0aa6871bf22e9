import { Option, type Command } from 'commander'

export function skillsCommand(program: Command): void {
  const skills = program.command('skills').description('list, inspect and install skills')

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
    .command('validate [paths...]')
    .description(
      'check SKILL.md folders strictly against the Agent Skills specification (and their links); installed skills also against skills-lock.json (default: the skills installed in the data dir)',
    )
    .option('--json', 'print { skills, errors, warnings, findings } as JSON')
    .action(async (paths: string[], _o: unknown, command: Command) =>
      (await import('../actions/skills-validate.js')).skillsValidate(paths, command.optsWithGlobals()),
    )

  skills
    .command('add <source>')
    .description(
      'install SKILL.md skills from a git repository (URL, OWNER/REPO, …/tree/REF/PATH), a folder, or a .zip/.tar.gz URL or file, pinned by hash in skills-lock.json',
    )
    .option('--skill <name>', 'install only this skill (repeatable)', (name: string, names: string[]) => [...names, name], [])
    .option('--list', 'list the skills the source holds (with their findings); install nothing')
    .option('--pin <ref>', 'check out this branch, tag or commit of a git source; the lockfile records it as the ref')
    .option('--project', "install into the project's .agents/skills and ./skills-lock.json instead of the data dir")
    .option('-y, --yes', "install without asking (without a terminal it doesn't ask)")
    .option('--accept-risk', 'install even skills with high-risk findings (scripts that run what they download, read credentials, …); they are listed first')
    .option('--allow-loopback', "fetch from this machine's own addresses (localhost, 127.0.0.0/8, ::1), refused by default")
    .option('--allow-redirects', "follow a git server's redirect to another origin, refused by default")
    .option('--json', 'with --list: print { source, commit, skills, findings } as JSON')
    .action(async (source: string, _o: unknown, command: Command) =>
      (await import('../actions/skills-bundles.js')).skillsAdd(source, command.optsWithGlobals()),
    )

  skills
    .command('update [name]')
    .description('fetch installed skills (or one) again from their sources, show what changed, and apply it')
    .option('--project', "the project's .agents/skills and ./skills-lock.json")
    .option('-y, --yes', 'apply without asking (needed without a terminal)')
    .option('--accept-risk', 'apply even changes with high-risk findings; they are listed first')
    .option('--allow-loopback', "fetch from this machine's own addresses (localhost, 127.0.0.0/8, ::1), refused by default")
    .option('--allow-redirects', "follow a git server's redirect to another origin, refused by default")
    .action(async (name: string | undefined, _o: unknown, command: Command) =>
      (await import('../actions/skills-bundles.js')).skillsUpdate(name, command.optsWithGlobals()),
    )

  skills
    .command('remove <name>')
    .description('uninstall an installed skill: its folder, its lockfile entry, its catalog row and bindings')
    .option('--project', "the project's .agents/skills and ./skills-lock.json")
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/skills-bundles.js')).skillsRemove(name, command.optsWithGlobals()))

  skills
    .command('install')
    .description('install every skill skills-lock.json pins that is missing or differs on disk')
    .option('--frozen', 'restore exactly what the lockfile pins: fail, installing nothing, on any hash mismatch')
    .option('--accept-risk', 'install even content the lockfile does not pin that has a high-risk finding')
    .option('--allow-loopback', "fetch from this machine's own addresses (localhost, 127.0.0.0/8, ::1), refused by default")
    .option('--allow-redirects', "follow a git server's redirect to another origin, refused by default")
    .option('--project', "the project's .agents/skills and ./skills-lock.json")
    .action(async (_o: unknown, command: Command) => (await import('../actions/skills-bundles.js')).skillsInstall(command.optsWithGlobals()))

  skills
    .command('upload <file>')
    .description('install the skills in a .zip or .tar.gz bundle, kept under its SHA-256: into this data dir, or a server with --server')
    .option('--skill <name>', 'install only this skill (repeatable)', (name: string, names: string[]) => [...names, name], [])
    .option('--dry-run', 'show the plan, findings and risks; install nothing')
    .option('--accept-risk', 'install even skills with high-risk findings; run --dry-run first to read them')
    .addOption(new Option('--server <url>', "upload to this server's POST /api/skills/upload (admin key in SKILLPLANE_API_KEY)").env('SKILLPLANE_URL'))
    .option('--json', 'print the report as JSON')
    .action(async (file: string, _o: unknown, command: Command) => (await import('../actions/skills-upload.js')).skillsUpload(file, command.optsWithGlobals()))

  skills
    .command('rollback <name>')
    .description('put back the version of an installed skill that its last install, update or upload replaced')
    .action(async (name: string, _o: unknown, command: Command) =>
      (await import('../actions/skills-upload.js')).skillsRollback(name, command.optsWithGlobals()),
    )

  skills
    .command('export')
    .description('write the instruction-skill files an agent should have (templates rendered) to a folder, with a manifest')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .option('--user <key>', 'render as this user (user name or id, or a key name or id); default: as the agent itself')
    .requiredOption('--out <dir>', 'the folder to write')
    .action(async (_o: unknown, command: Command) => (await import('../actions/skills.js')).skillsExport(command.optsWithGlobals()))

  skills
    .command('share <name>')
    .description('say who may see a skill: everyone, named agents, or named users; admins always see it')
    .option('--all', 'everyone (the default)')
    .option('--agent <agents...>', 'only these agents (names, aliases or ids)')
    .option('--user <users...>', 'only these users (names or ids)')
    .option('--json', 'print { key, sharing, notes } as JSON')
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/skills.js')).skillsShare(name, command.optsWithGlobals()))
}
