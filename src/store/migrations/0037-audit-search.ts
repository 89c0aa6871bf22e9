import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * The words of error messages, for the audit's free-text search (only rows with an error: the others
 * cost nothing). Words are runs of letters and digits on both databases: ASCII punctuation is blanked
 * before PostgreSQL's parser sees the text, so "db-7.internal" is the words db, 7 and internal there
 * as it is for SQLite's unicode61 tokenizer (which keeps accents on both, as 'simple' does).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create index audit_calls_error_words_idx on audit_calls using gin (${sql.raw(PG_ERROR_WORDS)}) where error_message is not null`.execute(db)
    return
  }
  // Contentless (the text stays in audit_calls), keyed by the audit row's rowid, with the call id kept
  // beside the words so a search sorts its hits without reading their audit rows; triggers keep it
  // in step with every write and delete (retention) whoever makes it. (A VACUUM could renumber
  // audit rowids, audit_calls having no integer key: skillplane never runs one.)
  await sql`create virtual table audit_search using fts5(error_message, call_id unindexed, content='', contentless_delete=1, contentless_unindexed=1, tokenize='unicode61 remove_diacritics 0')`.execute(
    db,
  )
  await sql`create trigger audit_search_insert after insert on audit_calls when new.error_message is not null
    begin insert into audit_search (rowid, error_message, call_id) values (new.rowid, new.error_message, new.call_id); end`.execute(db)
  // One trigger for both halves: the order of two triggers on one event is not defined.
  await sql`create trigger audit_search_update after update of error_message on audit_calls
    begin
      delete from audit_search where rowid = old.rowid and old.error_message is not null;
      insert into audit_search (rowid, error_message, call_id) select new.rowid, new.error_message, new.call_id where new.error_message is not null;
    end`.execute(db)
  await sql`create trigger audit_search_delete after delete on audit_calls when old.error_message is not null
    begin delete from audit_search where rowid = old.rowid; end`.execute(db)
  await sql`insert into audit_search (rowid, error_message, call_id) select rowid, error_message, call_id from audit_calls where error_message is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop index audit_calls_error_words_idx`.execute(db)
    return
  }
  for (const trigger of ['audit_search_insert', 'audit_search_update', 'audit_search_delete']) await sql`drop trigger ${sql.id(trigger)}`.execute(db)
  await sql`drop table audit_search`.execute(db)
}

// Kept word for word in AuditRepository: PostgreSQL uses an expression index only for the same expression.
const PUNCTUATION = `!"#$%&''()*+,-./:;<=>?@[\\]^_\`{|}~`
export const PG_ERROR_WORDS = `to_tsvector('simple', translate(error_message, '${PUNCTUATION}', '${' '.repeat(32)}'))`
