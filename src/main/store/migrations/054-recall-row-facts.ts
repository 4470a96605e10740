/**
 * Which facts each persisted recall block holds. A turn stores its recall block in the asking
 * session's transcript, so the block is a copy of the recalled facts (text and citation); when a
 * fact is forgotten, or the session its citation names, forget finds the blocks through this
 * table (by fact, an index walk) and rewrites or removes them in the same transaction.
 *
 * Blocks written before this migration are linked here from their JSONL records.
 */
export const up = `
CREATE TABLE recall_row_facts (
  fact_seq   INTEGER NOT NULL REFERENCES memory_facts(seq) ON DELETE CASCADE,
  message_id TEXT NOT NULL REFERENCES session_messages(id) ON DELETE CASCADE,
  PRIMARY KEY (fact_seq, message_id)
) WITHOUT ROWID;
CREATE INDEX recall_row_facts_message ON recall_row_facts(message_id);

INSERT OR IGNORE INTO recall_row_facts (fact_seq, message_id)
WITH RECURSIVE lines(message_id, line, rest) AS (
  SELECT id, '', content || char(10) FROM session_messages WHERE model_context = 'memory_recall'
  UNION ALL
  SELECT message_id, substr(rest, 1, instr(rest, char(10)) - 1), substr(rest, instr(rest, char(10)) + 1)
  FROM lines WHERE rest <> ''
)
SELECT f.seq, l.message_id FROM lines l JOIN memory_facts f ON f.id = json_extract(l.line, '$.id')
WHERE l.line LIKE '{%' AND json_valid(l.line);
`;
