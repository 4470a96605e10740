/**
 * LoCoMo (long real two-person conversations with gold evidence), read at run time from the
 * shared bench folder. The data is licensed for evaluation only: never copy it into the
 * repository, a fixture or a test; benches read it from its path and say so when it is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_LOCOMO_FILE = path.resolve(__dirname, '../../../../shared/bench/locomo-dev.json');

export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export interface LocomoQuestion {
  question: string;
  answer?: unknown;
  evidence?: string[];
  category: number;
}

export interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: LocomoQuestion[];
  /** Per session, per speaker: gold facts as [text, dia_id] (dia_id may be a list in a few rows). */
  observation: Record<string, Record<string, [string, string | string[]][]>>;
}

export interface LocomoSession {
  /** N of session_N. */
  index: number;
  /** The session's date-time as epoch ms (UTC; the data gives no zone). */
  startedAt: number;
  turns: LocomoTurn[];
}

export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

/** Reads the dataset, or returns null (with the reason) when the file is absent. */
export function readLocomo(file = DEFAULT_LOCOMO_FILE): { samples: LocomoSample[] } | { missing: string } {
  if (!existsSync(file)) return { missing: `LoCoMo data not found at ${file} (pass --data FILE)` };
  return { samples: JSON.parse(readFileSync(file, 'utf8')) as LocomoSample[] };
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC). */
export function parseLocomoDate(text: string): number {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) throw new Error(`unrecognized LoCoMo date: ${text}`);
  const [, hh, mm, ampm, day, monthName, year] = m;
  const month = MONTHS.indexOf(monthName!.toLowerCase());
  if (month < 0) throw new Error(`unrecognized month in LoCoMo date: ${text}`);
  const hour = (Number(hh) % 12) + (ampm!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(year), month, Number(day), hour, Number(mm));
}

/** The conversation's sessions in order. */
export function sessionsOf(sample: LocomoSample): LocomoSession[] {
  const c = sample.conversation;
  const out: LocomoSession[] = [];
  for (const key of Object.keys(c)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m) continue;
    const turns = c[key] as LocomoTurn[];
    const when = c[`${key}_date_time`];
    if (!Array.isArray(turns) || turns.length === 0 || typeof when !== 'string') continue;
    out.push({ index: Number(m[1]), startedAt: parseLocomoDate(when), turns });
  }
  return out.sort((a, b) => a.index - b.index);
}

/** A turn's message text: its text plus a space and the image caption when there is one. */
export const turnText = (t: LocomoTurn): string => (t.blip_caption ? `${t.text} ${t.blip_caption}` : t.text);

/** Gold turns for extraction: the dia_ids cited by speaker_a's observations. */
export function goldUserTurns(sample: LocomoSample): Set<string> {
  const gold = new Set<string>();
  for (const perSpeaker of Object.values(sample.observation ?? {})) {
    for (const [, ref] of perSpeaker?.[sample.conversation.speaker_a] ?? []) {
      for (const id of Array.isArray(ref) ? ref : String(ref).split(/[;,\s]+/)) if (id) gold.add(id.trim());
    }
  }
  return gold;
}

/** Any function that runs a contract command: dispatch on an engine, an HTTP client, ... */
export type RunCommand = (name: string, input: Record<string, unknown>) => Promise<any>;

export interface LoadedConversation {
  projectId: string;
  sessionIds: string[];
  /** message id -> dia_id */
  diaIdOf: Map<string, string>;
}

/**
 * Loads one conversation the way the bench README describes: one project, each LoCoMo session a
 * top-level session, speaker_a the user and speaker_b the assistant, real times kept (one
 * second apart within a session, which the data does not time).
 */
export async function loadConversation(run: RunCommand, sample: LocomoSample): Promise<LoadedConversation> {
  const projectId = `locomo-${sample.sample_id}`;
  const loaded: LoadedConversation = { projectId, sessionIds: [], diaIdOf: new Map() };
  for (const session of sessionsOf(sample)) {
    const s = await run('sessions.create', {
      projectId,
      title: `Session ${session.index}`,
      createdAt: session.startedAt,
    });
    loaded.sessionIds.push(s.id);
    for (const [i, turn] of session.turns.entries()) {
      const role = turn.speaker === sample.conversation.speaker_a ? 'user' : 'assistant';
      const m = await run('messages.add', {
        sessionId: s.id,
        role,
        content: turnText(turn),
        createdAt: session.startedAt + i * 1000,
      });
      loaded.diaIdOf.set(m.id, turn.dia_id);
    }
  }
  return loaded;
}
