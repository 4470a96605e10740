import type { SessionRecord } from '../../shared/schemas';
import type { NoteVersion } from './queue';
import type { PendingSession } from '../store/dream-log';
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

export const noteSlug = (name: string) => `note-${name.replace(/\.md$/, '').toLowerCase().replace(/_/g, '-')}`;
