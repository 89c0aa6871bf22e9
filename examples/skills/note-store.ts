import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

export interface Note {
  id: number
  title: string
  body: string
  tags: string[]
  createdAt: string
}

interface NoteRow {
  id: number
  title: string
  body: string
  tags: string
  created_at: string
}

/** The demo skills' own state: a small SQLite database next to skillplane's. */
export class NoteStore {
  readonly #dataDir: string
  #opened: Database.Database | undefined

  // Opened at the first note call, not when the config is evaluated (every CLI command evaluates it).
  constructor(dataDir: string) {
    this.#dataDir = dataDir
  }

  get #db(): Database.Database {
    if (this.#opened) return this.#opened
    mkdirSync(this.#dataDir, { recursive: true })
    const db = new Database(join(this.#dataDir, 'notes.db'))
    db.pragma('journal_mode = WAL')
    db.exec(`create table if not exists notes (
      id integer primary key autoincrement,
      title text not null,
      body text not null,
      tags text not null,
      created_at text not null
    )`)
    return (this.#opened = db)
  }

  add(title: string, body: string, tags: string[]): Note {
    const createdAt = new Date().toISOString()
    const { lastInsertRowid } = this.#db
      .prepare('insert into notes (title, body, tags, created_at) values (?, ?, ?, ?)')
      .run(title, body, JSON.stringify(tags), createdAt)
    return { id: Number(lastInsertRowid), title, body, tags, createdAt }
  }

  list(options: { tag?: string; limit: number }): { notes: Note[]; total: number } {
    const rows = this.#db.prepare('select * from notes order by id desc').all() as NoteRow[]
    const notes = rows.map(toNote).filter((n) => !options.tag || n.tags.includes(options.tag))
    return { notes: notes.slice(0, options.limit), total: notes.length }
  }

  purge(options: { olderThanDays: number; tag?: string }): number {
    const cutoff = new Date(Date.now() - options.olderThanDays * 86_400_000).toISOString()
    const rows = this.#db.prepare('select * from notes where created_at < ?').all(cutoff) as NoteRow[]
    const doomed = rows.map(toNote).filter((n) => !options.tag || n.tags.includes(options.tag))
    const remove = this.#db.prepare('delete from notes where id = ?')
    this.#db.transaction(() => doomed.forEach((n) => remove.run(n.id)))()
    return doomed.length
  }
}

function toNote(row: NoteRow): Note {
  return { id: row.id, title: row.title, body: row.body, tags: JSON.parse(row.tags) as string[], createdAt: row.created_at }
}
