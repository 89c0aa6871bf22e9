import { Command, Option } from 'commander'
import { VERSION } from '../../version.js'

type Register = (program: Command) => void

// Each command's module (and what it pulls in: the plane, the HTTP server, the AI SDK) loads only
// when that command runs; help and unknown commands load them all, so they list every command.
const COMMANDS: Record<string, () => Promise<Register>> = {
  init: async () => (await import('./commands/init.js')).initCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  skills: async () => (await import('./commands/skills.js')).skillsCommand,
  invoke: async () => (await import('./commands/invoke.js')).invokeCommand,
  audit: async () => (await import('./commands/audit.js')).auditCommand,
  sync: async () => (await import('./commands/sync.js')).syncCommand,
  keys: async () => (await import('./commands/keys.js')).keysCommand,
  approvals: async () => (await import('./commands/approvals.js')).approvalsCommand,
  policies: async () => (await import('./commands/policies.js')).policiesCommand,
  sop: async () => (await import('./commands/sop.js')).sopCommand,
  packs: async () => (await import('./commands/packs.js')).packsCommand,
  sources: async () => (await import('./commands/sources.js')).sourcesCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
}
// `run` also defines `runs` and `test-run`.
const ALIASES: Record<string, string> = { runs: 'run', 'test-run': 'run' }
const GLOBAL_WITH_VALUE = new Set(['--data-dir', '--config', '--database-url'])

/** The program for these arguments (`process.argv`), with the commands they may need registered. */
export async function createProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('skillplane')
    .description('the control plane for AI-agent skills')
    .version(VERSION)
    .addOption(new Option('--data-dir <dir>', 'where the SQLite database and local state live').env('SKILLPLANE_DATA_DIR').default('.skillplane'))
    .addOption(new Option('--config <file>', 'config file (default: ./skillplane.config.{ts,mts,js,mjs})').env('SKILLPLANE_CONFIG'))
    .addOption(new Option('--database-url <url>', 'postgres://… to share state between managers').env('SKILLPLANE_DATABASE_URL'))
    .showHelpAfterError('(run with --help for usage)')
  const name = commandName(argv.slice(2))
  const wanted = name === undefined ? undefined : (ALIASES[name] ?? name)
  const versionOnly = name === undefined && argv.slice(2).some((a) => a === '--version' || a === '-V')
  const load = wanted && wanted in COMMANDS ? [wanted] : versionOnly ? [] : Object.keys(COMMANDS)
  for (const register of await Promise.all(load.map((n) => COMMANDS[n]!()))) register(program)
  return program
}

/** The first argument that is not a global option or its value: the command, if any. */
function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (GLOBAL_WITH_VALUE.has(arg)) i++
    else if (!arg.startsWith('-')) return arg
  }
  return undefined
}
