/**
 * Agents page through the facts of their own scopes by reinforcement (memory.facts). With this
 * index each visible scope is read in order and stops after one page, instead of sorting every
 * fact of a large project per request (about 140 ms at 100k facts in one scope without it).
 * Recency already has memory_facts_scope_updated.
 */
export const up = `
CREATE INDEX memory_facts_scope_reinforcement ON memory_facts(scope, scope_key, reinforcement, id);
`;
