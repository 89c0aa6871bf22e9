import { read } from 'read'
import type { ConnectionValueInfo, ValueKind } from '../../../connections/index.js'
import { VALUE_NAME, VALUE_NAME_RULE } from '../../../skill/index.js'
import { localAdmin, withStore, type GlobalOptions } from '../open-plane.js'
import { formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'

type OwnerOptions = GlobalOptions & { agent?: string; user?: string; json?: boolean }

export async function valueSet(kind: ValueKind, name: string, given: string | undefined, o: OwnerOptions): Promise<void> {
  // Named before the value is asked for, so a typo doesn't cost a pasted secret.
  if (!VALUE_NAME.test(name)) throw new CliError(`${kind} name ${JSON.stringify(name)} is not valid (${VALUE_NAME_RULE})`)
  const whom = owner(o)
  const value = given ?? (await readValue(kind, name))
  const set = await withStore(o, (plane) => (kind === 'secret' ? plane.values.secrets : plane.values.settings).set(name, value, whom, localAdmin()))
  if (o.json) return console.log(JSON.stringify(set, null, 2))
  console.log(`set ${kind} ${set.name} (${whose(set)}, version ${set.version})`)
}

export async function valueList(kind: ValueKind, o: OwnerOptions): Promise<void> {
  const list = await withStore(o, (plane) => (kind === 'secret' ? plane.values.secrets : plane.values.settings).list())
  if (o.json) return console.log(JSON.stringify(list, null, 2))
  if (list.length === 0) return console.log(`no ${kind}s`)
  const head = ['NAME', 'OWNER', 'VERSION', 'SET AT', 'SET BY']
  const rows = list.map((v) => [v.name, whose(v), String(v.version), v.updatedAt, v.updatedBy])
  console.log(
    kind === 'setting'
      ? formatTable(
          [...head, 'VALUE'],
          rows.map((r, i) => [...r, list[i]!.value ?? '']),
        )
      : formatTable(head, rows),
  )
}

export async function valueDelete(kind: ValueKind, name: string, o: OwnerOptions): Promise<void> {
  const deleted = await withStore(o, (plane) => (kind === 'secret' ? plane.values.secrets : plane.values.settings).delete(name, owner(o), localAdmin()))
  if (!deleted) throw new CliError(`no ${kind} ${name} for ${o.user ? `user ${o.user}` : o.agent ? `agent ${o.agent}` : 'everyone (global)'}`)
  console.log(`deleted ${kind} ${deleted.name} (${whose(deleted)}, version ${deleted.version})`)
}

export async function rotateKey(o: GlobalOptions & { json?: boolean }): Promise<void> {
  const done = await withStore(o, (plane) => plane.values.rotateSecretsKey(localAdmin()))
  if (o.json) return console.log(JSON.stringify(done, null, 2))
  console.log(
    `re-sealed ${done.resealed} value${done.resealed === 1 ? '' : 's'} (secrets and settings) under a new key (fingerprint ${done.fingerprint})` +
      (done.unreadable > 0 ? `; ${done.unreadable} the old key could not open were left as they were` : ''),
  )
  if (done.key === null) console.log(`wrote the new key to ${done.keyFile}: copy it to every manager sharing this database before starting it`)
  else
    console.log(
      `the new key: set SKILLPLANE_SECRETS_KEY=${done.key} for every manager before starting it; ` +
        `it is also in ${done.keyFile} (mode 0600): delete that file once the key is stored where you keep it`,
    )
}

function owner(o: OwnerOptions): { agent?: string; user?: string } {
  if (o.agent !== undefined && o.user !== undefined) throw new CliError('give --agent or --user, not both')
  for (const [flag, given] of [
    ['--agent', o.agent],
    ['--user', o.user],
  ] as const) {
    // `--user "$U"` with U unset must not write everyone's value.
    if (given !== undefined && given.trim() === '') throw new CliError(`${flag} is empty: name the owner, or leave ${flag} out for the global value`)
  }
  return { ...(o.agent !== undefined && { agent: o.agent }), ...(o.user !== undefined && { user: o.user }) }
}

function whose(v: ConnectionValueInfo): string {
  return v.scope === 'global' ? 'global' : `${v.scope} ${v.subject}`
}

/** Piped stdin (one trailing newline dropped), else a prompt that does not echo a secret. */
async function readValue(kind: ValueKind, name: string): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = ''
    for await (const chunk of process.stdin) text += String(chunk)
    const value = text.replace(/\r?\n$/, '')
    if (value === '') throw new CliError(`no value on stdin for ${kind} ${name}: pipe it in, e.g. printf %s "$TOKEN" | skillplane ${kind}s set ${name}`)
    return value
  }
  const value = await read({ prompt: `${kind} ${name}: `, silent: kind === 'secret', replace: kind === 'secret' ? '*' : undefined, output: process.stderr })
  if (value === '') throw new CliError(`no value given for ${kind} ${name}`)
  return value
}
