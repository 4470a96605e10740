import type { SessionRecord } from '../../shared/schemas';
import type { NoteVersion, PendingSession } from './queue';
import type { Transcript } from './transcript';

export type WorkItem =
  | {
      kind: 'session';
      key: string;
      pending: PendingSession;
      session: SessionRecord;
      transcript: Transcript;
      chars: number;
    }
  | { kind: 'note'; key: string; note: NoteVersion; chars: number };

export interface ItemOutcome {
  ok: boolean;
  error?: string;
  /** Topic page slugs this item created or changed (dream_log.topics_written). */
  topics: string[];
}

export interface BatchOutcome {
  outcomes: ItemOutcome[];
  pagesWritten: string[];
}

/** Turns admitted sources into wiki pages. The default is deterministic and offline. */
export interface Consolidator {
  readonly name: string;
  consolidate(items: WorkItem[], today: string): Promise<BatchOutcome>;
}

/** `session-<last 8 hex of the id>` (never the first 8: those are UUIDv7 timestamp bits). */
export { idSlug } from '../../shared/ids';

export const noteSlug = (name: string) => `note-${name.replace(/\.md$/, '').toLowerCase().replace(/_/g, '-')}`;
