/**
 * Evidence names its session by a small integer instead of the session's 36-character id, in
 * the evidence rows and in their (session, last seen) index: 100k evidence rows took 12.1 MB
 * (about 120 bytes each, two thirds of it the id written twice), now about 4.5 MB.
 *
 * - memory_evidence_sessions maps each session that has (or had) evidence to its ref, once.
 *   Its row goes with the session (ON DELETE CASCADE), and the evidence rows go with it in turn,
 *   so forgetting a session still removes every row that names it.
 * - memory_fact_evidence_rows holds the rows, keyed (fact seq, session ref) as before.
 * - memory_fact_evidence becomes a view with the old columns, so every reader (citations,
 *   Dream's watermark, forget's report, the window) reads it unchanged. Writers write the rows
 *   table with the ref (store/evidence.ts).
 *
 * Facts also lose `status`, which could only ever hold 'active' (6 bytes a fact).
 */
export const up = `
CREATE TABLE memory_evidence_sessions (
  ref        INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE
);
INSERT INTO memory_evidence_sessions (session_id)
  SELECT DISTINCT session_id FROM memory_fact_evidence ORDER BY session_id;

CREATE TABLE memory_fact_evidence_rows (
  fact_seq     INTEGER NOT NULL REFERENCES memory_facts(seq) ON DELETE CASCADE,
  session_ref  INTEGER NOT NULL REFERENCES memory_evidence_sessions(ref) ON DELETE CASCADE,
  message_id   TEXT REFERENCES session_messages(id) ON DELETE SET NULL,
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  PRIMARY KEY (fact_seq, session_ref)
) WITHOUT ROWID;
INSERT INTO memory_fact_evidence_rows (fact_seq, session_ref, message_id, created_at, last_seen_at)
  SELECT e.fact_seq, s.ref, e.message_id, e.created_at, e.last_seen_at
  FROM memory_fact_evidence e JOIN memory_evidence_sessions s ON s.session_id = e.session_id
  ORDER BY e.fact_seq, s.ref;

DROP TABLE memory_fact_evidence;
CREATE INDEX memory_fact_evidence_session_seen ON memory_fact_evidence_rows(session_ref, last_seen_at);
CREATE INDEX memory_fact_evidence_message ON memory_fact_evidence_rows(message_id) WHERE message_id IS NOT NULL;

CREATE VIEW memory_fact_evidence AS
  SELECT e.fact_seq, s.session_id, e.message_id, e.created_at, e.last_seen_at, e.session_ref
  FROM memory_fact_evidence_rows e JOIN memory_evidence_sessions s ON s.ref = e.session_ref;

ALTER TABLE memory_facts DROP COLUMN status;
`;
