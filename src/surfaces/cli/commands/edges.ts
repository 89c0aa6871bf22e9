import type { Command } from 'commander'

const collect = (value: string, previous: string[] = []) => [...previous, value]

export function edgesCommand(program: Command): void {
  const edges = program.command('edges').description('enroll, list and revoke edge agents (remote hosts running `skillplane edge`)')

  edges
    .command('enroll')
    .description('enroll an edge; its token is printed once and stored only as a hash')
    .requiredOption('--name <name>', 'the edge name (lower-case letters, digits, -)')
    .option('--label <key=value>', 'a label policies can match (repeatable), e.g. env=prod', collect)
    .option('--secret <name>', 'a secret name calls of its packs may carry (repeatable; see edges secrets)', collect)
    .option('--expires-in <lifetime>', "the token's lifetime: hours or days, e.g. 12h or 90d (default: until rotated or revoked)")
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/edges.js')).edgesEnroll(command.optsWithGlobals()))

  edges
    .command('list')
    .description('list enrolled edges: online, host, manager holding the connection, skills offered')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/edges.js')).edgesList(command.optsWithGlobals()))

  edges
    .command('show <idOrName>')
    .description('show one edge with the skills it offers')
    .option('--json', 'print JSON')
    .action(async (idOrName: string, _o: unknown, command: Command) => (await import('../actions/edges.js')).edgesShow(idOrName, command.optsWithGlobals()))

  edges
    .command('secrets <idOrName> [names...]')
    .description('show, or replace, the secret names an edge may receive: its packs get the declared ones it is granted, per call')
    .option('--none', 'grant none')
    .option('--json', 'print JSON')
    .action(async (idOrName: string, names: string[], _o: unknown, command: Command) =>
      (await import('../actions/edges.js')).edgesSecrets(idOrName, names, command.optsWithGlobals()),
    )

  edges
    .command('rotate <idOrName>')
    .description('give an edge a new token, printed once: the old one stops at once and a connection made with it closes')
    .option('--expires-in <lifetime>', "the new token's lifetime: hours or days, e.g. 12h or 90d (default: until rotated or revoked)")
    .option('--json', 'print JSON')
    .action(async (idOrName: string, _o: unknown, command: Command) => (await import('../actions/edges.js')).edgesRotate(idOrName, command.optsWithGlobals()))

  edges
    .command('revoke <idOrName>')
    .description('revoke an edge: its token stops working and its connection closes')
    .action(async (idOrName: string, _o: unknown, command: Command) => (await import('../actions/edges.js')).edgesRevoke(idOrName, command.optsWithGlobals()))
}

export function edgeCommand(program: Command): void {
  program
    .command('edge')
    .description('run this host as an edge: dial out to a manager and run the host skills it is sent')
    .requiredOption('--manager <urls>', 'manager URL(s), comma-separated (http or https; tried in turn)')
    .option('--token <token>', "the edge's token, from edges enroll or edges rotate (or SKILLPLANE_EDGE_TOKEN)")
    .option('--name <name>', 'the edge name the token was enrolled with (checked by the manager)')
    .option('--label <key=value>', 'a label to announce (repeatable); policies match those set at enrollment', collect)
    .option('--packs <dir>', 'a folder of skill packs to offer as host skills (repeatable)', collect)
    .option('--allow-read <dir>', 'a folder tail_file may read (repeatable)', collect)
    .option('--allow-shell', 'offer run_command (dangerous: two approvers and a signed procedure per call)')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .action(async (_o: unknown, command: Command) => (await import('../actions/edge.js')).edge(command.optsWithGlobals()))
}
