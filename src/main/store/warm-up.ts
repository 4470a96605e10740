import type { Db } from './db';

/**
 * What the read lane primes itself with before its first request: the most recently active
 * session and the text of the newest fact, so the statements, pages and code a real recall and
 * search use are compiled and read once before anyone waits for them. Null on an empty store.
 */
export function warmUpSample(db: Db): { sessionId: string; text: string } | null {
  const session = db.prepare('SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 1').get() as
    { id: string } | undefined;
  if (!session) return null;
  const fact = db.prepare('SELECT text FROM memory_facts ORDER BY seq DESC LIMIT 1').get() as
    { text: string } | undefined;
  return { sessionId: session.id, text: fact?.text ?? 'warm up the read lane' };
}
