/**
 * The desktop window sorts facts by confidence (facts.list sort=confidence). Without an index on
 * the same expression SQLite sorts every matching fact per page: about 1.2-1.5 s per page at 1M
 * facts, which stalls infinite scroll. These expression indexes match fact-queries.ts's sort
 * expression exactly (SQLite only uses an expression index for an identical expression), for all
 * facts and within one scope.
 */
const CONFIDENCE_RANK = "(CASE confidence WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)";

export const up = `
CREATE INDEX memory_facts_confidence_order ON memory_facts(${CONFIDENCE_RANK}, id);
CREATE INDEX memory_facts_scope_confidence_order ON memory_facts(scope, scope_key, ${CONFIDENCE_RANK}, id);
`;
