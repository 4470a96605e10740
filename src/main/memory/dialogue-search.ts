import type { Db } from '../store/db';
import type { SessionScopes } from './scope';
import { findCandidates, taggedLookup, type Candidates, type TaggedIndex } from './recall/fts';
import { scopeTag } from '../store/index-tags';
import { STOP_WORDS, rawTokens, termsBySurfaceForm } from '../text/tokenize';
import { inverseDocumentFrequency, saturation } from '../text/bm25';
import {
  neighbourTurns,
  scopeSessions,
  turnsByRowid,
  type DialogueTurn,
  type TurnContext as Context,
} from '../store/dialogue-queries';

/**
 * Ranking of dialogue evidence for memory_search: BM25 over the turns the session may read, with
 * two corrections that conversation needs, and the turn's neighbours as a weak field.
 *
 *   score(d)  = Σ_q w(q) · sat(f(q, d), ℓ(d)) × (1 + coverage_w(d))
 *   f(q, d)   = tf(q, d) + 0.7 · tf(q, prev) + 0.3 · tf(q, next) + 0.25 · tf(q, session title)
 *   ℓ(d)      = ℓ(d) + 0.7 · ℓ(prev) + 0.3 · ℓ(next),  against an average of avgℓ · 2
 *   w(q)      = idf(q) · (1 − spread(q))^0.25
 *   spread(q) = sessions holding q ÷ (sessions of the scope + 1)
 *   coverage_w(d) = Σ w(q) over the terms d itself holds ÷ Σ w(q)
 *
 * - Lengths count content words only (stop-words out); tf counts folded words.
 * - Session spread: a word said in every session of a conversation is a participant's name, a
 *   greeting or a habit ("Thanks, Mel!"), never what a question is about; damping it by the share
 *   of sessions it occurs in needs no list of names. The +1 keeps a one-session scope neutral.
 * - Neighbours: an answer is often "Yes, last Tuesday" to a question in the turn before it, so
 *   the previous turn of the same session counts at 0.7 and the next one at 0.3 (leave-one-
 *   conversation-out on LoCoMo's development half chose this asymmetry in every fold). They are
 *   read only for the 20 best turns on their own text; the neighbours of those can enter the
 *   results too.
 * - coverage_w rewards a turn for holding the query's weighted words itself, not through context.
 *
 * Candidates come rarest term first from the scope-tagged index (see fts.ts); a term whose lookup
 * was capped (more rows than the cap in scope) gets its document frequency and spread estimated
 * from the sessions its newest rows span.
 */
const DIALOGUE_INDEX: TaggedIndex = {
  table: 'session_messages_fts',
  tagColumn: 'tags',
  textColumn: 'content',
  newestFirst: 'ASC',
};
const DIALOGUE_CANDIDATES = { perTermCap: 60, deepCap: 150, maxTerms: 12, budget: 240 };
/** Weights of the previous and next turn: what a turn answers says more about it than what follows. */
const NEIGHBOUR_WEIGHTS = [0.7, 0.3] as const;
const CONTEXT_LENGTH = 1 + NEIGHBOUR_WEIGHTS[0] + NEIGHBOUR_WEIGHTS[1];
const TITLE_WEIGHT = 0.25;
const SPREAD_DAMPING = 0.25;
const CONTEXT_TOP = 20;

/**
 * The tags a session's dialogue search may read: its owner's whole team, plus the sessions of
 * the owner's project, else of its normalized workspace, else of its Work folder. Every row of
 * the owner's team carries the owner's project (workspace, folder) tag too, so when there is one
 * it alone covers the team: one tag doclist for FTS5 to intersect instead of two.
 */
export function dialogueTags(scopes: SessionScopes): string[] {
  const o = scopes.owner;
  if (o.projectId) return [scopeTag('p', o.projectId)];
  if (o.workspace) return [scopeTag('w', o.workspace)];
  if (o.folderId) return [scopeTag('f', o.folderId)];
  return [scopeTag('o', o.id)];
}

export interface RankedTurn {
  turn: DialogueTurn;
  score: number;
}

interface Bag {
  counts: Map<string, number>;
  length: number;
}

/** Raw word -> the query term it folds to: exactly the surface forms of each term. */
type TermForms = ReadonlyMap<string, string>;

/** Query-term counts and content-word length of a text (no folding needed: forms are looked up). */
function bagOf(text: string, forms: TermForms): Bag {
  const counts = new Map<string, number>();
  let length = 0;
  for (const raw of rawTokens(text)) {
    if (STOP_WORDS.has(raw)) continue;
    length++;
    const t = forms.get(raw);
    if (t !== undefined) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return { counts, length };
}

/** Dialogue turns for a query, best first, at least `CONTEXT_TOP` of them when that many match. */
export function rankDialogue(db: Db, scopes: SessionScopes, query: readonly string[]): RankedTurn[] {
  if (query.length === 0) return [];
  const lookup = taggedLookup(DIALOGUE_INDEX, dialogueTags(scopes));
  const candidates = findCandidates(db, DIALOGUE_INDEX, lookup, query, DIALOGUE_CANDIDATES);
  if (candidates.rowids.length === 0) return [];
  const turns = turnsByRowid(db, candidates.rowids);
  const terms = termsBySurfaceForm(query);
  const bags = new Map(turns.map((t) => [t.id, bagOf(t.content, terms)]));
  const averageLength = Math.max(1, [...bags.values()].reduce((n, b) => n + b.length, 0) / Math.max(1, bags.size));
  const weight = termWeights(db, scopes, query, candidates, turns);
  const totalWeight = [...weight.values()].reduce((a, b) => a + b, 0) || 1;

  const ownScore = (b: Bag) => {
    let s = 0;
    for (const [q, tf] of b.counts) s += weight.get(q)! * saturation(tf, b.length, averageLength);
    return s;
  };
  const best = turns
    .map((turn) => ({ turn, score: ownScore(bags.get(turn.id)!) }))
    .filter((r) => r.score > 0)
    .sort(byScore)
    .slice(0, CONTEXT_TOP);

  const pool = withNeighbours(
    db,
    best.map((r) => r.turn),
  );
  const ranked: RankedTurn[] = [];
  // The pool's turns come from a handful of sessions: each title is split once.
  const titleBags = new Map<string, Bag>();
  for (const [turn, ctx] of pool) {
    const own = bags.get(turn.id) ?? bagOf(turn.content, terms);
    bags.set(turn.id, own);
    const near = [ctx.previous, ctx.next].map((n) => (n ? (bags.get(n.id) ?? bagOf(n.content, terms)) : null));
    const titleText = turn.title ?? '';
    let title = titleBags.get(titleText);
    if (!title) titleBags.set(titleText, (title = bagOf(titleText, terms)));
    let score = 0;
    let held = 0;
    const length = own.length + near.reduce((n, b, i) => n + NEIGHBOUR_WEIGHTS[i]! * (b?.length ?? 0), 0);
    for (const [q, w] of weight) {
      const tf = own.counts.get(q) ?? 0;
      const f =
        tf +
        near.reduce((n, b, i) => n + NEIGHBOUR_WEIGHTS[i]! * (b?.counts.get(q) ?? 0), 0) +
        TITLE_WEIGHT * (title.counts.get(q) ?? 0);
      score += w * saturation(f, length, averageLength * CONTEXT_LENGTH);
      if (tf > 0) held += w;
    }
    if (score > 0) ranked.push({ turn, score: score * (1 + held / totalWeight) });
  }
  return ranked.sort(byScore);
}

const byScore = (a: RankedTurn, b: RankedTurn) =>
  b.score - a.score || (a.turn.id < b.turn.id ? -1 : a.turn.id > b.turn.id ? 1 : 0);

/**
 * The turns with their neighbours, and each neighbour as a turn of its own. A neighbour's own
 * context is the turn that brought it in (its other side is not read: one probe round only).
 */
function withNeighbours(db: Db, turns: readonly DialogueTurn[]): Map<DialogueTurn, Context> {
  const context = neighbourTurns(db, turns);
  const out = new Map<DialogueTurn, Context>();
  const taken = new Set(turns.map((t) => t.id));
  for (const t of turns) out.set(t, context.get(t.id)!);
  for (const t of turns) {
    const { previous, next } = context.get(t.id)!;
    if (previous && !taken.has(previous.id)) {
      taken.add(previous.id);
      out.set(previous, { previous: null, next: t });
    }
    if (next && !taken.has(next.id)) {
      taken.add(next.id);
      out.set(next, { previous: t, next: null });
    }
  }
  return out;
}

/**
 * w(q) per query term: BM25's idf over the scope's turns, damped by the term's session spread.
 * A term whose lookup returned fewer rows than its cap has an exact document frequency and
 * session count; for a capped term both are extrapolated from the sessions its newest rows span.
 */
function termWeights(
  db: Db,
  scopes: SessionScopes,
  query: readonly string[],
  candidates: Candidates,
  turns: readonly DialogueTurn[],
): Map<string, number> {
  const sessions = scopeSessions(db, scopes.owner);
  const documents = Math.max(
    sessions.reduce((n, s) => n + s.messages, 0),
    candidates.rowids.length,
  );
  const sessionOf = new Map(turns.map((t) => [t.rowid, t.session_id]));
  const startOf = new Map(sessions.map((s) => [s.id, s.created_at]));
  const weight = new Map<string, number>();
  for (const q of query) {
    // A very long query looks up only some of its words; the others do not weigh in.
    const rows = candidates.termRows.get(q);
    if (!rows) continue;
    const held = new Set(rows.map((r) => sessionOf.get(r)).filter((s): s is string => s !== undefined));
    let df = rows.length;
    let window = sessions.length;
    if (!candidates.complete.has(q)) {
      // Capped: the rows reach back to the session holding the oldest of them.
      const oldest = sessionOf.get(rows.at(-1)!);
      const since = oldest === undefined ? -Infinity : (startOf.get(oldest) ?? -Infinity);
      const spanned = sessions.filter((s) => s.created_at >= since);
      const spannedMessages = spanned.reduce((n, s) => n + s.messages, 0);
      window = Math.max(spanned.length, held.size);
      if (spannedMessages > 0) df = Math.max(df, Math.round((rows.length * documents) / spannedMessages));
    }
    const spread = held.size / (window + 1);
    weight.set(q, inverseDocumentFrequency(df, documents) * Math.pow(1 - spread, SPREAD_DAMPING));
  }
  return weight;
}
