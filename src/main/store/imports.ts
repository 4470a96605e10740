import type { Statement } from 'better-sqlite3';
import type { Db } from './db';
import { lastMessageOf } from './messages';
import { DIALOGUE_TOP_ROWID } from './migrations/101-import-dialogue-index';

/** Where an imported conversation came from (migration 100). */
export const IMPORT_SOURCES = ['chatgpt', 'claude', 'jsonl'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

export interface ImportedConversationRow {
  sessionId: string;
  source: ImportSource;
  originalId: string;
  contentHash: string;
  messageCount: number;
  extractionPending: boolean;
  importedAt: number;
  updatedAt: number;
}

interface Row {
  session_id: string;
  source: ImportSource;
  original_id: string;
  content_hash: string;
  message_count: number;
  extraction_pending: number;
  imported_at: number;
  updated_at: number;
}

const toRow = (r: Row): ImportedConversationRow => ({
  sessionId: r.session_id,
  source: r.source,
  originalId: r.original_id,
  contentHash: r.content_hash,
  messageCount: r.message_count,
  extractionPending: r.extraction_pending === 1,
  importedAt: r.imported_at,
  updatedAt: r.updated_at,
});

/** One message to append to an imported session, already filtered and timed. */
export interface ImportedMessageInsert {
  id: string;
  key: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: number;
}

function statements(db: Db) {
  return {
    bySource: db.prepare('SELECT * FROM import_conversations WHERE source = ? AND original_id = ?'),
    bySession: db.prepare('SELECT * FROM import_conversations WHERE session_id = ?'),
    keys: db.prepare('SELECT message_key FROM import_messages WHERE session_id = ?').pluck(),
    insertConversation: db.prepare(
      `INSERT INTO import_conversations (session_id, source, original_id, content_hash, message_count, extraction_pending,
         imported_at, updated_at) VALUES (?, ?, ?, '', 0, 0, ?, ?)`,
    ),
    insertKey: db.prepare(
      'INSERT OR IGNORE INTO import_messages (session_id, message_key, message_id) VALUES (?, ?, ?)',
    ),
    insertMessage: db.prepare(
      `INSERT INTO session_messages (id, session_id, seq, role, content, hidden, side_chat_context, tool_call_round,
         system_generated, is_summary, compacted, created_at) VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, ?)`,
    ),
    touchSession: db.prepare('UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?'),
    deferIndex: db.prepare('INSERT OR IGNORE INTO dialogue_index_deferred (only_row) VALUES (1)'),
    resumeIndex: db.prepare('DELETE FROM dialogue_index_deferred'),
    lowestIndexRow: db.prepare('SELECT MIN(rowid) FROM dialogue_index_rows').pluck(),
    indexRow: db.prepare('INSERT INTO dialogue_index_rows (rowid, message_id) VALUES (?, ?)'),
    indexText: db.prepare('INSERT INTO session_messages_fts (rowid, tags, content) VALUES (?, ?, ?)'),
    // An imported session is top-level: its own id and context are its dialogue tags (migration 21).
    tags: db
      .prepare(
        `SELECT 'o' || hex(id)
           || CASE WHEN project_id IS NOT NULL THEN ' p' || hex(project_id) ELSE '' END
           || CASE WHEN workspace IS NOT NULL AND workspace <> '' THEN ' w' || hex(workspace) ELSE '' END
           || CASE WHEN folder_id IS NOT NULL THEN ' f' || hex(folder_id) ELSE '' END
         FROM sessions WHERE id = ? AND kind = 'top-level'`,
      )
      .pluck(),
    // Counted, not added up: chunks committed before a crash were never counted by a finish.
    finish: db.prepare(
      `UPDATE import_conversations SET content_hash = @hash,
         message_count = (SELECT count(*) FROM import_messages WHERE session_id = @sessionId),
         extraction_pending = CASE
           WHEN (SELECT count(*) FROM import_messages WHERE session_id = @sessionId) <> message_count THEN 1
           ELSE extraction_pending END,
         updated_at = @now
       WHERE session_id = @sessionId`,
    ),
  };
}

type Statements = ReturnType<typeof statements>;
const cache = new WeakMap<Db, Statements>();
/** Prepared once per connection: an import runs these hundreds of thousands of times. */
const sql = (db: Db): Statements => {
  let s = cache.get(db);
  if (!s) cache.set(db, (s = statements(db)));
  return s;
};

export function findImportedConversation(
  db: Db,
  source: ImportSource,
  originalId: string,
): ImportedConversationRow | undefined {
  const row = (sql(db).bySource as Statement<[string, string], Row>).get(source, originalId);
  return row && toRow(row);
}

export function importProvenance(db: Db, sessionId: string): ImportedConversationRow | undefined {
  const row = (sql(db).bySession as Statement<[string], Row>).get(sessionId);
  return row && toRow(row);
}

/** The message keys already imported into a session. */
export const importedMessageKeys = (db: Db, sessionId: string): Set<string> =>
  new Set(sql(db).keys.all(sessionId) as string[]);

export function insertImportedConversation(
  db: Db,
  row: { sessionId: string; source: ImportSource; originalId: string; now: number },
): void {
  sql(db).insertConversation.run(row.sessionId, row.source, row.originalId, row.now, row.now);
}

interface Appended {
  sessionId: string;
  message: ImportedMessageInsert;
}

/**
 * Indexes messages just appended (in the order they were inserted) for dialogue search, as
 * migration 21's trigger would: the next rowids below the lowest one, the last inserted getting
 * the smallest. They are written in ascending rowid order, after every message insert of the
 * transaction, so FTS5 keeps them all in one pending batch instead of flushing once per message.
 */
function indexForDialogueSearch(db: Db, appended: Appended[]): void {
  const s = sql(db);
  const tags = new Map<string, string | undefined>();
  const tagsOf = (sessionId: string) => {
    if (!tags.has(sessionId)) tags.set(sessionId, s.tags.get(sessionId) as string | undefined);
    return tags.get(sessionId);
  };
  let rowid = ((s.lowestIndexRow.get() as number | null) ?? DIALOGUE_TOP_ROWID) - appended.length;
  for (let k = appended.length - 1; k >= 0; k--, rowid++) {
    const { sessionId, message } = appended[k]!;
    const sessionTags = tagsOf(sessionId);
    if (sessionTags === undefined) continue;
    s.indexRow.run(rowid, message.id);
    s.indexText.run(rowid, sessionTags, message.content);
  }
}

/**
 * Appends to each session the messages whose key it does not have yet, in order, at the next
 * seqs. created_at is strictly increasing within a session, as appendMessage keeps it: a message
 * older than the one before it gets that one's time plus a millisecond. Returns how many were
 * appended per entry (a key another importer added meanwhile is skipped, never doubled). Run
 * inside a write transaction: the dialogue index is written in bulk at its end (migration 101).
 */
export function appendImportedMessages(
  db: Db,
  entries: { sessionId: string; messages: ImportedMessageInsert[] }[],
): number[] {
  const s = sql(db);
  const appended: Appended[] = [];
  const counts: number[] = [];
  s.deferIndex.run();
  for (const { sessionId, messages } of entries) {
    const last = lastMessageOf(db, sessionId);
    let seq = last?.seq ?? 0;
    let previous = last?.created_at ?? -Infinity;
    let added = 0;
    for (const m of messages) {
      if (s.insertKey.run(sessionId, m.key, m.id).changes === 0) continue;
      const at = Math.max(m.createdAt, previous + 1);
      s.insertMessage.run(m.id, sessionId, ++seq, m.role, m.content, at);
      previous = at;
      appended.push({ sessionId, message: m });
      added++;
    }
    if (added > 0) s.touchSession.run(previous, sessionId);
    counts.push(added);
  }
  s.resumeIndex.run();
  indexForDialogueSearch(db, appended);
  return counts;
}

/** The last chunk of a conversation: its new content hash, and extraction owed when it has new messages. */
export function finishImportedConversation(db: Db, row: { sessionId: string; contentHash: string; now: number }): void {
  sql(db).finish.run({ hash: row.contentHash, sessionId: row.sessionId, now: row.now });
}

/** Imported sessions extraction has not caught up with yet, oldest import first. */
export function sessionsPendingExtraction(db: Db, limit: number, excluding: ReadonlySet<string> = new Set()): string[] {
  const rows = db
    .prepare(
      `SELECT session_id FROM import_conversations WHERE extraction_pending = 1
       ORDER BY imported_at, session_id LIMIT ?`,
    )
    .pluck()
    .all(limit + excluding.size) as string[];
  return rows.filter((id) => !excluding.has(id)).slice(0, limit);
}

export const countPendingExtraction = (db: Db): number =>
  db.prepare('SELECT count(*) FROM import_conversations WHERE extraction_pending = 1').pluck().get() as number;

/**
 * Extraction has worked through the session. Cleared only while the message count is the one the
 * run saw, so messages imported during the run keep it pending.
 */
export function clearExtractionPending(db: Db, sessionId: string, messageCount: number): boolean {
  return (
    db
      .prepare(
        'UPDATE import_conversations SET extraction_pending = 0 WHERE session_id = ? AND message_count = ? AND extraction_pending = 1',
      )
      .run(sessionId, messageCount).changes > 0
  );
}
