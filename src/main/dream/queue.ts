import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import type { WikiService } from '../wiki/service';
import { DREAM_SOURCE_SESSION_SQL, DREAM_VISIBLE_SQL } from './visible';

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
  `(SELECT e.last_seen_at FROM memory_fact_evidence e INDEXED BY memory_fact_evidence_session_seen
     WHERE e.session_id = ${session} ORDER BY e.last_seen_at DESC LIMIT 1)`;

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

/**
 * Top-level sessions with a visible message newer than their watermark, or evidence newer than
 * the evidence Dream last saw, oldest session first. A session with neither messages nor facts
 * is never pending: there is nothing to consolidate. Reading the queue has no side effects.
 */
export function pendingSessions(db: Db, limit: number, exclude: ReadonlySet<string> = new Set()): PendingSession[] {
  const rows = db.prepare(pendingSql('ORDER BY created_at, id LIMIT ?')).all(limit + exclude.size) as PendingSession[];
  return rows.filter((r) => !exclude.has(r.id)).slice(0, limit);
}

export function countPendingSessions(db: Db): number {
  return (db.prepare(`SELECT count(*) AS n FROM (${pendingSql('')})`).get() as { n: number }).n;
}

export interface NoteVersion {
  /** File name inside notes/, e.g. 2026-04-29.md. */
  name: string;
  mtimeMs: number;
  hash: string;
  content: string;
}

interface NoteLogRow {
  filename: string;
  source_mtime: number;
  content_hash: string;
}

export const contentHash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The current version of one note: mtime observed before reading, and the hash of what was read. */
export function readNoteVersion(wiki: WikiService, name: string): NoteVersion | null {
  const file = path.join(wiki.root, 'notes', name);
  try {
    wiki.locate(`notes/${name}`);
    const mtimeMs = statSync(file).mtimeMs;
    const content = readFileSync(file, 'utf8');
    return { name, mtimeMs, hash: contentHash(content), content };
  } catch {
    return null;
  }
}

/** Whether Dream has consumed exactly this content of the note (so deleting it loses no Dream input). */
export function noteConsumed(db: Db, name: string, content: string): boolean {
  const row = db.prepare('SELECT content_hash FROM dream_notes_log WHERE filename = ?').get(name) as
    { content_hash: string } | undefined;
  return row?.content_hash === contentHash(content);
}

/**
 * Notes whose content differs from the version Dream last consumed (or that it never saw),
 * sorted by name. The recorded version is the mtime and content hash read just before
 * synthesis, so an append that lands during a run leaves the note pending for the next one; a
 * touch that changes nothing does not re-queue it.
 */
export function pendingNotes(db: Db, wiki: WikiService, exclude: ReadonlySet<string> = new Set()): NoteVersion[] {
  const seen = new Map(
    (db.prepare('SELECT filename, source_mtime, content_hash FROM dream_notes_log').all() as NoteLogRow[]).map((r) => [
      r.filename,
      r,
    ]),
  );
  const out: NoteVersion[] = [];
  for (const name of wiki.listSection('notes')) {
    if (exclude.has(name)) continue;
    const v = readNoteVersion(wiki, name);
    if (!v) continue;
    const row = seen.get(name);
    if (!row || row.content_hash !== v.hash) out.push(v);
  }
  return out;
}
