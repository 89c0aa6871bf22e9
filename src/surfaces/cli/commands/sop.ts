import type { Command } from 'commander'

export function sopCommand(program: Command): void {
  const sop = program.command('sop').description('signed standard operating procedures for dangerous skills')

  sop
    .command('keygen')
    .description('make an Ed25519 key pair: keep the private key offline, put the public one in the config (sopKeys)')
    .requiredOption('--private <file>', 'where to write the private key (PEM, mode 0600)')
    .requiredOption('--public <file>', 'where to write the public key (PEM)')
    .action(async (o: { private: string; public: string }) => (await import('../actions/sop.js')).sopKeygen(o))

  sop
    .command('sign <file>')
    .description('sign an SOP (markdown with front matter) with a private key; writes FILE.sig')
    .requiredOption('--key <file>', 'the Ed25519 private key (PEM)')
    .option('--out <file>', 'where to write the signature (default FILE.sig)')
    .action(async (file: string, o: { key: string; out?: string }) => (await import('../actions/sop.js')).sopSign(file, o))

  sop
    .command('verify <file>')
    .description('check an SOP and its signature against the keys in the config')
    .option('--signature <file>', 'the signature (default FILE.sig)')
    .action(async (file: string, _o: unknown, command: Command) => (await import('../actions/sop.js')).sopVerify(file, command.optsWithGlobals()))

  sop
    .command('register <file>')
    .description('verify an SOP and store it so approvals can cite it')
    .option('--signature <file>', 'the signature (default FILE.sig)')
    .action(async (file: string, _o: unknown, command: Command) => (await import('../actions/sop.js')).sopRegister(file, command.optsWithGlobals()))

  sop
    .command('list')
    .description('registered SOPs')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/sop.js')).sopList(command.optsWithGlobals()))

  sop
    .command('revoke <id>')
    .description('revoke an SOP: approvals can no longer cite it')
    .action(async (id: string, _o: unknown, command: Command) => (await import('../actions/sop.js')).sopRevoke(id, command.optsWithGlobals()))
}
