import type { Log } from './log';

/**
 * Engine-internal notifications, so services stay decoupled: turns announce completed
 * responses, extraction listens; forget announces, views invalidate. Listeners run
 * synchronously and must not throw; long work is scheduled, not done inline.
 */
export interface EngineEvents {
  /** A completed lead response was persisted (assistant, not a tool round, visible). */
  'response-completed': { sessionId: string; messageId: string };
  /** Messages were written (the dialogue index grew); no ids for a bulk import. */
  'messages-written': { sessionIds: string[] };
  /** Facts or evidence were written or removed. */
  'facts-changed': { sessionIds: string[] };
  /** Sessions were forgotten. */
  'sessions-forgotten': { sessionIds: string[] };
  /** A forget's wiki clean-up finished: its disk scrub may run. */
  'forget-followed-up': { sessionIds: string[]; factIds: string[] };
  /** A long job moved on (the CLI shows it on a terminal). */
  progress: JobProgress;
}

export interface JobProgress {
  /** What is running, e.g. "legacy import". */
  job: string;
  /** What done and total count, e.g. "sessions". */
  unit: string;
  done: number;
  total: number;
}

type Listener<K extends keyof EngineEvents> = (payload: EngineEvents[K]) => void;

export class EventHub {
  constructor(private readonly log: Pick<Log, 'error'>) {}

  private listeners = new Map<keyof EngineEvents, Set<Listener<never>>>();

  on<K extends keyof EngineEvents>(event: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn as Listener<never>);
    return () => set.delete(fn as Listener<never>);
  }

  emit<K extends keyof EngineEvents>(event: K, payload: EngineEvents[K]): void {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        (fn as Listener<K>)(payload);
      } catch (e) {
        this.log.error(`listener for ${event} failed`, e);
      }
    }
  }
}
