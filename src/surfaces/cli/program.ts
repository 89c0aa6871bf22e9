import { Command, Option } from 'commander'
import { VERSION } from '../../version.js'
import { serveCommand } from './commands/serve.js'
import { skillsCommand } from './commands/skills.js'
import { invokeCommand } from './commands/invoke.js'
import { auditCommand } from './commands/audit.js'
import { syncCommand } from './commands/sync.js'
import { keysCommand } from './commands/keys.js'
import { approvalsCommand } from './commands/approvals.js'
import { policiesCommand } from './commands/policies.js'
import { sopCommand } from './commands/sop.js'
import { packsCommand } from './commands/packs.js'
import { sourcesCommand } from './commands/sources.js'
import { mcpCommand } from './commands/mcp.js'
import { runCommand } from './commands/run.js'

export function createProgram(): Command {
  const program = new Command('skillplane')
    .description('the control plane for AI-agent skills')
    .version(VERSION)
    .addOption(new Option('--data-dir <dir>', 'where the SQLite database and local state live').env('SKILLPLANE_DATA_DIR').default('.skillplane'))
    .addOption(new Option('--config <file>', 'config file (default: ./skillplane.config.{ts,mts,js,mjs})').env('SKILLPLANE_CONFIG'))
    .addOption(new Option('--database-url <url>', 'postgres://… to share state between managers').env('SKILLPLANE_DATABASE_URL'))
    .showHelpAfterError('(run with --help for usage)')
  serveCommand(program)
  skillsCommand(program)
  invokeCommand(program)
  auditCommand(program)
  syncCommand(program)
  keysCommand(program)
  approvalsCommand(program)
  policiesCommand(program)
  sopCommand(program)
  packsCommand(program)
  sourcesCommand(program)
  mcpCommand(program)
  runCommand(program)
  return program
}
