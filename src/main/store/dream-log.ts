import type { Db } from './db';
import type { MessageRole } from '../../shared/domain';
import { DREAM_SOURCE_SESSION_SQL, DREAM_VISIBLE_SQL } from './dream-visible';

/** Dream's watermarks: what it consumed of each session (dream_log) and each note (dream_notes_log). */
export interface PendingSession {
  id: string;
  createdAt: number;
  /** created_at of the newest visible message right now (null when it has evidence but no messages). */
  latestVisibleAt: number | null;
  /** The message watermark from the last run, or null if never processed. */
  processedAt: number | null;
  /** last_seen_at of the newest evidence row right now. */
  evidenceAt: number | null;
}

const visible = DREAM_VISIBLE_SQL.replace(
  /\b(role|hidden|side_chat_context|system_generated|compacted|is_summary)\b/g,
  'm.$1',
);

const newestEvidence = (session: string) =>
  `(SELECT e.last_seen_at FROM memory_fact_evidence_rows e INDEXED BY memory_fact_evidence_session_seen
     WHERE e.session_ref = (SELECT ref FROM memory_evidence_sessions WHERE session_id = ${session})
     ORDER BY e.last_seen_at DESC LIMIT 1)`;

/**
 * The newest evidence of a session's team members and side chats (transitively): it counts as
 * the lead's, so it re-queues the lead. A lead without a team costs one probe of sessions_parent.
 */
const teamEvidence = `(SELECT max(x) FROM (
    WITH RECURSIVE team(id) AS (
      SELECT c.id FROM sessions c WHERE c.parent_session_id = s.id
      UNION SELECT c.id FROM sessions c JOIN team ON c.parent_session_id = team.id)
    SELECT ${newestEvidence('team.id')} AS x FROM team))`;

// One index probe each for the newest visible message and the newest evidence of a session's team.
const pendingSql = (tail: string) => `
  SELECT id, created_at AS createdAt, latest AS latestVisibleAt, processed_at AS processedAt, evidence AS evidenceAt FROM (
    SELECT id, created_at, processed_at, evidence_at, logged, latest,
      NULLIF(max(COALESCE(own_evidence, -1), COALESCE(team_evidence, -1)), -1) AS evidence FROM (
      SELECT s.id, s.created_at, d.processed_at, d.evidence_at, d.session_id AS logged,
        (SELECT m.created_at FROM session_messages m INDEXED BY session_messages_dream_visible
          WHERE m.session_id = s.id AND ${visible} ORDER BY m.created_at DESC LIMIT 1) AS latest,
        ${newestEvidence('s.id')} AS own_evidence,
        ${teamEvidence} AS team_evidence
      FROM sessions s LEFT JOIN dream_log d ON d.session_id = s.id
      WHERE ${DREAM_SOURCE_SESSION_SQL}))
  WHERE (latest IS NOT NULL OR evidence IS NOT NULL)
    AND (logged IS NULL OR latest > processed_at OR evidence > COALESCE(evidence_at, -1))
  ${tail}`;

/** Sessions owed a Dream pass (see the pending queue in dream/queue), oldest session first. */
export function pendingSessionRows(db: Db, limit: number): PendingSession[] {
  return db.prepare(pendingSql('ORDER BY created_at, id LIMIT ?')).all(limit) as PendingSession[];
}

export function countPendingSessionRows(db: Db): number {
  return (db.prepare(`SELECT count(*) AS n FROM (${pendingSql('')})`).get() as { n: number }).n;
}

export interface NoteLogRow {
  filename: string;
  source_mtime: number;
  content_hash: string;
}

export function noteLogRows(db: Db): NoteLogRow[] {
  return db.prepare('SELECT filename, source_mtime, content_hash FROM dream_notes_log').all() as NoteLogRow[];
}

/** The content hash of the note version Dream last consumed, or null. */
export function consumedNoteHash(db: Db, filename: string): string | null {
  const row = db.prepare('SELECT content_hash FROM dream_notes_log WHERE filename = ?').get(filename) as
    { content_hash: string } | undefined;
  return row?.content_hash ?? null;
}

/**
 * The watermark writers of a batch, prepared once, inside its transaction. A session's
 * watermarks only move forward, and a session forgotten meanwhile gets no row.
 */
export function dreamLogWriters(db: Db) {
  const session = db.prepare(
    `INSERT INTO dream_log (session_id, processed_at, evidence_at, topics_written, updated_at)
     SELECT @id, @at, @evidence, @topics, @now WHERE EXISTS (SELECT 1 FROM sessions WHERE id = @id)
     ON CONFLICT (session_id) DO UPDATE SET processed_at = MAX(processed_at, excluded.processed_at),
       evidence_at = MAX(COALESCE(evidence_at, -1), COALESCE(excluded.evidence_at, -1)),
       topics_written = excluded.topics_written, updated_at = excluded.updated_at`,
  );
  const note = db.prepare(
    `INSERT INTO dream_notes_log (filename, source_mtime, content_hash, processed_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (filename) DO UPDATE SET source_mtime = excluded.source_mtime,
       content_hash = excluded.content_hash, processed_at = excluded.processed_at`,
  );
  return {
    session: (row: { id: string; at: number; evidence: number | null; topics: string | null; now: number }) =>
      session.run(row),
    note: (filename: string, mtimeMs: number, hash: string, now: number) => note.run(filename, mtimeMs, hash, now),
  };
}

export interface DreamMessageRow {
  role: MessageRole;
  content: string;
  created_at: number;
  is_summary: number;
}

/** The messages Dream reads of one session, in time order. */
export function dreamVisibleMessages(db: Db, sessionId: string): DreamMessageRow[] {
  return db
    .prepare(
      `SELECT role, content, created_at, is_summary FROM session_messages
       WHERE session_id = ? AND ${DREAM_VISIBLE_SQL} ORDER BY created_at, seq`,
    )
    .all(sessionId) as DreamMessageRow[];
}
