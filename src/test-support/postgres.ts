import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface TempPostgres {
  url: string
  /** Stop the server, keeping its data (an outage); `start` brings it back on the same port. */
  halt(): void
  start(): void
  stop(): void
}

/**
 * Start a throw-away PostgreSQL cluster with the machine's initdb/pg_ctl, or return null. `settings`
 * are server settings (`-c name=value`); tests want speed (fsync off, the default), a bench wants the
 * durability a deployment has (`{ fsync: 'on' }`).
 */
export async function startTempPostgres(settings: Record<string, string> = { fsync: 'off' }): Promise<TempPostgres | null> {
  const bin = findPostgresBin()
  if (!bin) return null
  const dir = mkdtempSync(join(tmpdir(), 'skillplane-pg-'))
  const data = join(dir, 'data')
  const port = await freePort()
  // PostgreSQL refuses to run as root: run it as the postgres user when we are root.
  const asUser = process.getuid?.() === 0 ? postgresUid() : null
  if (process.getuid?.() === 0 && !asUser) return null
  if (asUser) chownSync(dir, asUser.uid, asUser.gid)
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asUser ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args]
    const result = spawnSync(file, argv, { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`)
  }
  let running = false
  const start = () => {
    if (running) return
    const options = Object.entries({ listen_addresses: '127.0.0.1', ...settings }).map(([name, value]) => `-c ${name}=${value}`)
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', [`-p ${port} -k ${dir}`, ...options].join(' '), 'start'])
    running = true
  }
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
    start()
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    halt() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
      running = false
    },
    start,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** A fresh, empty database on the server at adminUrl; returns its URL. */
export async function createTestDatabase(adminUrl: string): Promise<string> {
  const name = `sp_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    await client.query(`create database ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

function findPostgresBin(): string | null {
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim()
    if (initdb) return join(initdb, '..')
  } catch {
    // not on PATH
  }
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin')
  return null
}

function postgresUid(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    return { uid, gid }
  } catch {
    return null
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}
