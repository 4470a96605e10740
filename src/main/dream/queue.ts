import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db';
import type { WikiService } from '../wiki/service';
import {
  consumedNoteHash,
  countPendingSessionRows,
  noteLogRows,
  pendingSessionRows,
  type PendingSession,
} from '../store/dream-log';

/**
 * Top-level sessions with a visible message newer than their watermark, or evidence newer than
 * the evidence Dream last saw, oldest session first. A session with neither messages nor facts
 * is never pending: there is nothing to consolidate. Reading the queue has no side effects.
 */
export function pendingSessions(db: Db, limit: number, exclude: ReadonlySet<string> = new Set()): PendingSession[] {
  const rows = pendingSessionRows(db, limit + exclude.size);
  return rows.filter((r) => !exclude.has(r.id)).slice(0, limit);
}

export function countPendingSessions(db: Db): number {
  return countPendingSessionRows(db);
}

export interface NoteVersion {
  /** File name inside notes/, e.g. 2026-04-29.md. */
  name: string;
  mtimeMs: number;
  hash: string;
  content: string;
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
  return consumedNoteHash(db, name) === contentHash(content);
}

/**
 * Notes whose content differs from the version Dream last consumed (or that it never saw),
 * sorted by name. The recorded version is the mtime and content hash read just before
 * synthesis, so an append that lands during a run leaves the note pending for the next one; a
 * touch that changes nothing does not re-queue it.
 */
export function pendingNotes(db: Db, wiki: WikiService, exclude: ReadonlySet<string> = new Set()): NoteVersion[] {
  const seen = new Map(noteLogRows(db).map((r) => [r.filename, r]));
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
