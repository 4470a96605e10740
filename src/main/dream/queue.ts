import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import type { WikiService } from '../wiki/service';
import { DREAM_SOURCE_SESSION_SQL, DREAM_VISIBLE_SQL } from './visible';

export interface PendingSession {
  id: string;
  createdAt: number;
  /** created_at of the newest visible message right now. */
  latestVisibleAt: number;
  /** The watermark from the last run, or null if never processed. */
  processedAt: number | null;
}

// The newest visible message per session via the partial index (one probe, newest first).
const pendingSql = (tail: string) => `
  SELECT id, created_at AS createdAt, latest AS latestVisibleAt, processed_at AS processedAt FROM (
    SELECT s.id, s.created_at, d.processed_at,
      (SELECT m.created_at FROM session_messages m INDEXED BY session_messages_dream_visible
        WHERE m.session_id = s.id AND ${DREAM_VISIBLE_SQL.replace(/\b(role|hidden|side_chat_context|system_generated|compacted|is_summary)\b/g, 'm.$1')}
        ORDER BY m.created_at DESC LIMIT 1) AS latest
    FROM sessions s LEFT JOIN dream_log d ON d.session_id = s.id
    WHERE ${DREAM_SOURCE_SESSION_SQL})
  WHERE latest IS NOT NULL AND (processed_at IS NULL OR latest > processed_at)
  ${tail}`;

/**
 * Top-level sessions with a visible message newer than their watermark, oldest session first.
 * A session without any visible message is never pending: there is nothing to consolidate.
 * Reading the queue has no side effects.
 */
export function pendingSessions(db: Db, limit: number, exclude: ReadonlySet<string> = new Set()): PendingSession[] {
  const rows = db
    .prepare(pendingSql('ORDER BY created_at, id LIMIT ?'))
    .all(limit + exclude.size) as PendingSession[];
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
