/**
 * What a forget leaves to do outside its own transaction, queued inside it so a crash in between
 * finishes on the next start:
 *
 * - `wiki`: a forgotten session (its source page goes, Dream's bullets stop citing it) or a
 *   deleted fact (every Dream bullet anchored `<!-- fact:ID -->` goes), done through the wiki
 *   service under its lock;
 * - `disk`: rewrite the full-text index segments that still hold the forgotten terms, then
 *   checkpoint and truncate the WAL. It runs after the wiki rows are gone, since those rows name
 *   what was forgotten too.
 *
 * A row is deleted when its step is done (secure_delete zeroes it).
 */
export const up = `
CREATE TABLE forget_follow_ups (
  id         INTEGER PRIMARY KEY,
  step       TEXT NOT NULL CHECK (step = 'wiki' OR step = 'disk'),
  session_id TEXT,
  fact_id    TEXT,
  created_at INTEGER NOT NULL,
  CHECK ((step = 'disk') = (session_id IS NULL AND fact_id IS NULL)),
  CHECK (session_id IS NULL OR fact_id IS NULL)
);
CREATE INDEX forget_follow_ups_step ON forget_follow_ups(step, id);
`;
