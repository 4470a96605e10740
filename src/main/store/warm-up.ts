import type { Db } from './db';

/**
 * Facts the read lane primes itself with. Two compile the statements, read the index pages and
 * take the ranking code past its first, slowest runs; the JIT optimizes the rest under real
 * requests. Eight kept a fresh server's worker busy for ~150 ms at 10k facts, competing for the
 * cores with the first requests (answered on the main thread until the worker is warm); over ten
 * alternating runs each, p99 of a fresh server's first 100 `memory_begin_turn` calls was under
 * 20 ms in seven with two against five with eight.
 */
const SAMPLE_FACTS = 2;

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
