import type { Db } from './db';

/** Facts the read lane primes itself with: enough calls for the JIT to optimize the ranking code. */
const SAMPLE_FACTS = 8;

/**
 * What the read lane primes itself with before its first request: the most recently active
 * session and the texts of the newest facts, so the statements, pages and code a real recall and
 * search use are compiled, optimized and read before anyone waits for them. Null on an empty store.
 */
export function warmUpSample(db: Db): { sessionId: string; texts: string[] } | null {
  const session = db.prepare('SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 1').get() as
    { id: string } | undefined;
  if (!session) return null;
  const facts = db.prepare('SELECT text FROM memory_facts ORDER BY seq DESC LIMIT ?').all(SAMPLE_FACTS) as {
    text: string;
  }[];
  return { sessionId: session.id, texts: facts.length ? facts.map((f) => f.text) : ['warm up the read lane'] };
}
