import { writeTx, type Db } from '../../store/db';
import { recordFacts } from '../../store/facts';
import { resolveScopes } from '../scope';
import { LlmError } from '../../llm/openai-client';
import {
  advanceCursor,
  claimCursor,
  failCursor,
  holdsLease,
  type Backoff,
  type Cadence,
  type Claim,
  type ClaimRefusal,
} from './cursor';
import type { WindowBounds } from './transcript';
import { validateCandidates } from './validate';
import { MAX_CANDIDATES, ExtractorContractError, type Extractor, type TranscriptWindow } from './types';

export interface RunDeps {
  db: Db;
  now(): number;
  owner: string;
  extractor: Extractor;
  leaseMs: number;
  bounds: WindowBounds;
  backoff: Backoff;
  maxWindows: number;
  warn(message: string): void;
}

export type RunOutcome = 'stored' | 'nothing-new' | 'failed' | 'refused';

export interface RunResult {
  sessionId: string;
  outcome: RunOutcome;
  refusal: ClaimRefusal | null;
  extractor: string;
  windows: number;
  messagesRead: number;
  candidates: number;
  factsStored: number;
  factsCreated: number;
  factsReinforced: number;
  rejected: number;
  rejections: Record<string, number>;
  fromSeq: number;
  cursorSeq: number;
  /** More input is left after this run (it hit maxWindowsPerRun). */
  behind: boolean;
  error: string | null;
}

export const CANCELLED = 'cancelled during shutdown';

/** The message a candidate is evidence from: its own if it is in the window, else the window's last reply. */
function evidenceMessage(window: TranscriptWindow, messageId: string | null): string | null {
  if (messageId && window.entries.some((e) => e.messageId === messageId)) return messageId;
  const lastAssistant = [...window.entries].reverse().find((e) => e.role === 'assistant');
  return lastAssistant?.messageId ?? window.entries[window.entries.length - 1]?.messageId ?? null;
}

/** Reasons only: a rejected candidate may be a secret, so its text is never logged. */
function warnRejections(deps: RunDeps, sessionId: string, rejected: { reason: string }[]): void {
  if (rejected.length === 0) return;
  const counts: Record<string, number> = {};
  for (const r of rejected) counts[r.reason] = (counts[r.reason] ?? 0) + 1;
  const reasons = Object.entries(counts)
    .map(([reason, n]) => `${reason} x${n}`)
    .join(', ');
  deps.warn(`extraction: session ${sessionId}: rejected ${rejected.length} candidate(s): ${reasons}`);
}

function describeFailure(e: unknown, signal: AbortSignal): string {
  if (signal.aborted || (e instanceof LlmError && e.kind === 'cancelled')) return CANCELLED;
  if (e instanceof LlmError && e.kind === 'timeout') return `LLM timeout: ${e.message}`;
  return (e as Error)?.message ?? String(e);
}

function emptyResult(deps: RunDeps, sessionId: string): RunResult {
  return {
    sessionId,
    outcome: 'nothing-new',
    refusal: null,
    extractor: deps.extractor.name,
    windows: 0,
    messagesRead: 0,
    candidates: 0,
    factsStored: 0,
    factsCreated: 0,
    factsReinforced: 0,
    rejected: 0,
    rejections: {},
    fromSeq: 0,
    cursorSeq: 0,
    behind: false,
    error: null,
  };
}

type Candidates = Awaited<ReturnType<Extractor['extract']>>;

/** The extractor's candidates for one window; an error here fails the run with the cursor unmoved. */
async function extractWindow(deps: RunDeps, claim: Claim, signal: AbortSignal): Promise<Candidates> {
  if (signal.aborted) throw new Error(CANCELLED);
  const candidates = claim.window.entries.length ? await deps.extractor.extract(claim.window, signal) : [];
  if (candidates.length > MAX_CANDIDATES) {
    throw new ExtractorContractError(`extractor returned ${candidates.length} memories (at most ${MAX_CANDIDATES})`);
  }
  return candidates;
}

type NextWindow = { leaseMs: number; bounds: WindowBounds } | null;

/**
 * Validates a window's candidates outside the writer, then stores the accepted ones and advances
 * the cursor in one transaction, unless another run has taken the lease meanwhile.
 */
function commitWindow(deps: RunDeps, claim: Claim, sessionId: string, candidates: Candidates, more: NextWindow) {
  const scopes = resolveScopes(deps.db, sessionId);
  const roles = new Map(claim.window.entries.map((e) => [e.messageId, e.role]));
  const { accepted, rejected } = validateCandidates(candidates, scopes, {
    roleOf: (id) => (id ? roles.get(id) : undefined),
  });
  return writeTx(deps.db, () => {
    if (!holdsLease(deps.db, claim)) return { lost: true as const };
    const now = deps.now();
    const results = recordFacts(
      deps.db,
      accepted.map((c) => ({
        text: c.text,
        kind: c.kind,
        confidence: c.confidence,
        origin: 'extraction' as const,
        target: c.target,
        sessionId: scopes.owner.id,
        messageId: evidenceMessage(claim.window, c.messageId),
      })),
      now,
    );
    const created = results.filter((r) => r.created).length;
    const reinforced = results.filter((r) => r.reinforced).length;
    const next = advanceCursor(deps.db, claim, {
      factsStored: accepted.length,
      rejected: rejected.length,
      extractor: deps.extractor.name,
      now,
      next: more,
    });
    return { lost: false as const, accepted: accepted.length, rejected, created, reinforced, next };
  });
}

function tallyWindow(
  result: RunResult,
  claim: Claim,
  committed: { accepted: number; created: number; reinforced: number; rejected: { reason: string }[] },
): void {
  result.factsStored += committed.accepted;
  result.factsCreated += committed.created;
  result.factsReinforced += committed.reinforced;
  result.rejected += committed.rejected.length;
  for (const r of committed.rejected) result.rejections[r.reason] = (result.rejections[r.reason] ?? 0) + 1;
  result.cursorSeq = claim.window.lastSeq;
}

/**
 * One extraction run for a top-level session: claim, then for each window extract, validate and
 * store the facts with the cursor advance in one transaction. A failure leaves the cursor where
 * the last committed window put it, retryable.
 */
export async function runExtraction(
  deps: RunDeps,
  sessionId: string,
  options: { cadence: Cadence | null; signal: AbortSignal },
): Promise<RunResult> {
  const result = emptyResult(deps, sessionId);
  if (options.signal.aborted) return { ...result, outcome: 'failed', error: CANCELLED };
  const claimed = writeTx(deps.db, () =>
    claimCursor(deps.db, {
      sessionId,
      owner: deps.owner,
      now: deps.now(),
      leaseMs: deps.leaseMs,
      bounds: deps.bounds,
      cadence: options.cadence,
    }),
  );
  if ('refused' in claimed) return { ...result, outcome: 'refused', refusal: claimed };
  let claim: Claim | null = claimed;
  result.fromSeq = claim.window.entries[0]?.seq ?? claim.window.lastSeq;
  result.cursorSeq = claim.window.lastSeq;

  while (claim) {
    const current: Claim = claim;
    let candidates: Candidates;
    try {
      candidates = await extractWindow(deps, current, options.signal);
    } catch (e) {
      const error = describeFailure(e, options.signal);
      writeTx(deps.db, () =>
        failCursor(deps.db, current, error, deps.now(), error === CANCELLED ? null : deps.backoff),
      );
      return { ...result, outcome: 'failed', error };
    }
    result.windows++;
    result.messagesRead += current.window.entries.length;
    result.candidates += candidates.length;

    const more = result.windows < deps.maxWindows ? { leaseMs: deps.leaseMs, bounds: deps.bounds } : null;
    const committed = commitWindow(deps, current, sessionId, candidates, more);
    if (committed.lost) {
      return { ...result, outcome: 'failed', error: 'lease lost: another run reclaimed this cursor after it expired' };
    }
    tallyWindow(result, current, committed);
    warnRejections(deps, sessionId, committed.rejected);
    result.behind = current.window.truncated && committed.next === null && !more;
    claim = committed.next;
  }
  result.outcome = result.factsStored > 0 ? 'stored' : 'nothing-new';
  return result;
}
