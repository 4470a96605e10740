import { expect } from 'vitest';
import type { Db } from '../../src/main/store/db';

/** memory_scopes' counts equal the facts actually stored, per scope; no scope row is left empty. */
export function expectExactScopeCounts(db: Db): void {
  const counted = db
    .prepare('SELECT scope, scope_key AS key, facts FROM memory_scopes ORDER BY scope, scope_key')
    .all();
  const actual = db
    .prepare(
      'SELECT scope, scope_key AS key, count(*) AS facts FROM memory_facts GROUP BY scope, scope_key ORDER BY scope, scope_key',
    )
    .all();
  expect(counted).toEqual(actual);
}
