import { Command, Option } from 'commander'
import { VERSION } from '../../version.js'
import { initCommand } from './commands/init.js'
import { serveCommand } from './commands/serve.js'
import { skillsCommand } from './commands/skills.js'
import { invokeCommand } from './commands/invoke.js'
import { auditCommand } from './commands/audit.js'
import { syncCommand } from './commands/sync.js'
import { keysCommand } from './commands/keys.js'
import { usersCommand } from './commands/users.js'
import { groupsCommand } from './commands/groups.js'
import { approvalsCommand } from './commands/approvals.js'
import { policiesCommand } from './commands/policies.js'
import { secretsCommand } from './commands/secrets.js'
import { connectionsCommand } from './commands/connections.js'
import { learningsCommand } from './commands/learnings.js'
import { sopCommand } from './commands/sop.js'
import { packsCommand } from './commands/packs.js'
import { sourcesCommand } from './commands/sources.js'
import { mcpCommand } from './commands/mcp.js'
import { runCommand } from './commands/run.js'
import { edgeCommand, edgesCommand } from './commands/edges.js'

/**
 * The whole command tree. commands/ only declares (names, options, help) and so loads in
 * milliseconds; each action imports its module from actions/ (and with it the plane, the HTTP
 * server, the AI SDK) when that command runs.
 */
export function createProgram(): Command {
  const program = new Command('skillplane')
    .description('the control plane for AI-agent skills')
    .version(VERSION)
    .addOption(new Option('--data-dir <dir>', 'where the SQLite database and local state live').env('SKILLPLANE_DATA_DIR').default('.skillplane'))
    .addOption(new Option('--config <file>', 'config file (default: ./skillplane.config.{ts,mts,js,mjs})').env('SKILLPLANE_CONFIG'))
    .addOption(new Option('--database-url <url>', 'postgres://… to share state between managers').env('SKILLPLANE_DATABASE_URL'))
    .showHelpAfterError('(run with --help for usage)')
  for (const register of [
    initCommand,
    serveCommand,
    skillsCommand,
    invokeCommand,
    auditCommand,
    syncCommand,
    keysCommand,
    usersCommand,
    groupsCommand,
    approvalsCommand,
    policiesCommand,
    secretsCommand,
    connectionsCommand,
    learningsCommand,
    sopCommand,
    packsCommand,
    sourcesCommand,
    mcpCommand,
    runCommand,
    edgesCommand,
    edgeCommand,
  ])
    register(program)
  return program
}
