import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type SQLite from 'better-sqlite3'

// The backstop while the worker runs: a writer checkpoints inline only once the WAL passes this
// many pages (≈40 MB), when the worker has fallen behind or died. SQLite's default is 1,000.
const BACKSTOP_PAGES = 10_000
const SQLITE_DEFAULT_PAGES = 1_000
// A WAL file longer than this is cut back to it after a checkpoint resets it.
const WAL_LIMIT_BYTES = 64 * 2 ** 20
const BUSY_MS = 10
const IDLE_MS = 200

// Runs on the worker thread: passive checkpoints (they never block a writer) through its own
// connection, often while the WAL grows and rarely once it stops.
const WORKER = `
const SQLite = require(workerData.driver)
const db = new SQLite(workerData.file, { fileMustExist: true })
let timer
let frames = -1
const pass = () => {
  let grew = false
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)')
    grew = r.log !== frames
    frames = r.log
  } catch (error) {
    // Said once, then the writer's backstop checkpoints take over.
    parentPort.postMessage(String(error && error.message))
    return
  }
  timer = setTimeout(pass, grew ? ${BUSY_MS} : ${IDLE_MS})
}
pass()
parentPort.on('message', () => {
  clearTimeout(timer)
  if (db.open) db.close()
  parentPort.close()
})
`

/**
 * Keeps SQLite's checkpoints off the call path: the connection that commits audit rows would
 * otherwise copy the WAL into the database (and fsync it) inside every thousandth page's commit.
 * A worker thread with its own connection checkpoints instead; durability is unchanged (commits
 * are durable in the WAL either way).
 */
export class WalCheckpointer {
  readonly #worker: Worker
  readonly #exited: Promise<void>

  constructor(connection: SQLite.Database, onError: (message: string) => void) {
    connection.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`)
    connection.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`)
    const driver = createRequire(import.meta.url).resolve('better-sqlite3')
    this.#worker = new Worker(`const { parentPort, workerData } = require('node:worker_threads');${WORKER}`, {
      eval: true,
      workerData: { driver, file: connection.name },
    })
    // Without the worker the writer checkpoints as SQLite does by default again.
    const failed = (message: string) => {
      if (connection.open) connection.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`)
      onError(message)
    }
    this.#worker.on('message', failed)
    this.#worker.on('error', (error) => failed(error.message))
    this.#worker.unref()
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()))
  }

  async close(): Promise<void> {
    // Held while it closes its connection: an unreferenced worker would not keep the loop waiting.
    this.#worker.ref()
    this.#worker.postMessage('close')
    await this.#exited
  }
}
