/**
 * Facts can reach a session without a new message (extraction finishing after the response that
 * triggered it, a manual facts.add). dream_log.evidence_at is the newest evidence Dream saw for
 * the session; newer evidence makes it pending again. Existing rows start from the time they were
 * marked, so an upgrade does not re-queue everything.
 */
export const up = `
ALTER TABLE dream_log ADD COLUMN evidence_at INTEGER;
UPDATE dream_log SET evidence_at = updated_at;
CREATE INDEX memory_fact_evidence_session_seen ON memory_fact_evidence(session_id, last_seen_at);
`;
