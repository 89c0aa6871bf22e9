import { readFileSync, writeFileSync } from 'node:fs'
import { generateSigningKeys, signDocument, parseSop } from '../../../policy/index.js'
import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

export function sopKeygen(o: { private: string; public: string }): void {
  const keys = generateSigningKeys()
  write(o.private, keys.privateKey, 0o600, 'wx')
  write(o.public, keys.publicKey, 0o644, 'wx')
  console.log(`wrote ${o.private} and ${o.public}`)
}

export function sopSign(file: string, o: { key: string; out?: string }): void {
  const document = read(file)
  const parsed = parseSop(document)
  if (!parsed.ok) throw new CliError(`${file} is not a valid SOP: ${parsed.message}`)
  let signature
  try {
    signature = signDocument(document, read(o.key))
  } catch (error) {
    throw new CliError(`cannot sign with ${o.key}: ${(error as Error).message}`)
  }
  const out = o.out ?? `${file}.sig`
  write(out, JSON.stringify(signature, null, 2) + '\n', 0o644)
  console.log(`signed ${parsed.sop.id} (sha256 ${parsed.sop.hash}) with key ${signature.key}: ${out}`)
}

export async function sopVerify(file: string, o: GlobalOptions & { signature?: string }): Promise<void> {
  const document = read(file)
  const signature = read(o.signature ?? `${file}.sig`)
  const verified = await withStore(o, async (plane) => plane.approvals.sops.verify(document, signature))
  if (!verified.ok) throw new CliError(`${file}: ${verified.message}`)
  const { sop: doc, keyName } = verified.value
  console.log(`${file}: valid, signed by "${keyName}"; SOP ${doc.id} "${doc.title}" covers ${doc.skills.join(', ')} (sha256 ${doc.hash})`)
}

export async function sopRegister(file: string, o: GlobalOptions & { signature?: string }): Promise<void> {
  const document = read(file)
  const signature = read(o.signature ?? `${file}.sig`)
  const result = await withStore(o, (plane) => plane.approvals.sops.register(document, signature, localAdmin(), plane.now()))
  if (!result.ok) throw new CliError(`${file} refused: ${result.message}`)
  console.log(`registered SOP ${result.value.id} "${result.value.title}" for ${result.value.skills.join(', ')} (signed by "${result.value.keyName}")`)
}

export async function sopList(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const list = await withStore(o, (plane) => plane.approvals.sops.list())
  if (o.json) return console.log(JSON.stringify(list, null, 2))
  if (list.length === 0) return console.log('no SOPs registered')
  console.log(
    formatTable(
      ['ID', 'TITLE', 'SKILLS', 'KEY', 'REGISTERED', 'REVOKED'],
      list.map((s) => [s.id, s.title, s.skills.join(','), s.keyName, s.registeredAt, s.revokedAt ?? '-']),
    ),
  )
}

export async function sopRevoke(id: string, o: GlobalOptions): Promise<void> {
  const revoked = await withStore(o, (plane) => plane.approvals.sops.revoke(id, localAdmin(), plane.now()))
  if (!revoked) throw new CliError(`no active SOP "${id}"`)
  console.log(`revoked SOP ${id}`)
}

function read(file: string): string {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  try {
    // Signatures cover the text: invalid UTF-8 would be silently replaced, so it is refused.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new CliError(`${file} is not valid UTF-8`)
  }
}

function write(file: string, text: string, mode: number, flag = 'w'): void {
  try {
    writeFileSync(file, text, { mode, flag })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // Keys are never overwritten: losing a private key orphans every SOP it signed.
    if (code === 'EEXIST') throw new CliError(`${file} exists already: keygen never overwrites a key`)
    throw new CliError(`cannot write ${file}: ${code ?? (error as Error).message}`)
  }
}
