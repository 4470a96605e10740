import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db';
import { citationKey, evidenceOfFactSeq, messageAtRowid, type CitedRow } from '../store/citations';

/**
 * Opaque citation references (migration 053). `ref:e:<fact seq>:<tag>` cites one evidence row of
 * a fact, `ref:m:<message rowid>:<tag>` one dialogue message; the tag is an HMAC under the home's
 * citation key of the cited session and message, so a ref reveals neither, cannot be forged, and
 * stays the same every time the same evidence is cited. Resolving recomputes the tag over the few
 * rows the number can point at: a fact's evidence rows, or the one message at that rowid. The
 * program never runs VACUUM (which may renumber a message's rowid); if someone does, an `m` ref
 * stops resolving rather than pointing elsewhere, since its tag binds the message id.
 */
type RefKind = 'e' | 'm';
const REF = /^ref:([em]):([0-9a-z]{1,13}):([A-Za-z0-9_-]{16})$/;

function tag(key: Buffer, kind: RefKind, n: number, row: CitedRow): string {
  return createHmac('sha256', key)
    .update(`${kind}\0${n}\0${row.sessionId}\0${row.messageId ?? ''}`)
    .digest('base64url')
    .slice(0, 16);
}

const format = (kind: RefKind, n: number, t: string) => `ref:${kind}:${n.toString(36)}:${t}`;

/**
 * Refs computed lately, per connection: a ref is a pure function of the home's key and what it
 * cites, and the same facts and messages are cited by search after search, so the HMAC (a few
 * microseconds each, for every hit) is mostly computed once.
 */
const REF_CACHE_SIZE = 4096;
const refCaches = new WeakMap<Db, Map<string, string>>();

function cachedRef(db: Db, kind: RefKind, n: number, row: CitedRow): string {
  let cache = refCaches.get(db);
  if (!cache) refCaches.set(db, (cache = new Map()));
  const key = `${kind}\0${n}\0${row.sessionId}\0${row.messageId ?? ''}`;
  let ref = cache.get(key);
  if (ref === undefined) {
    ref = format(kind, n, tag(citationKey(db), kind, n, row));
    if (cache.size >= REF_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, ref);
  }
  return ref;
}

/** The ref of a fact's evidence row (a fact citation). */
export const evidenceRef = (db: Db, factSeq: number, row: CitedRow): string => cachedRef(db, 'e', factSeq, row);

/** The ref of a dialogue message (a memory_search dialogue hit). */
export const messageRef = (db: Db, messageRowid: number, row: CitedRow): string =>
  cachedRef(db, 'm', messageRowid, row);

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The session and message a ref cites, or null when it is malformed, forged or its evidence is gone. */
export function resolveRef(db: Db, ref: string): CitedRow | null {
  const m = REF.exec(ref);
  if (!m) return null;
  const kind = m[1] as RefKind;
  const n = parseInt(m[2]!, 36);
  if (!Number.isSafeInteger(n)) return null;
  const key = citationKey(db);
  const candidates = kind === 'e' ? evidenceOfFactSeq(db, n) : [messageAtRowid(db, n)].filter((r) => r !== undefined);
  return candidates.find((row) => same(tag(key, kind, n, row), m[3]!)) ?? null;
}
