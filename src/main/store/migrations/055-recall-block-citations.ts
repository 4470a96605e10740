/**
 * Recall blocks persisted before citations were confined name the cited session and message even
 * when the evidence came from another context, and keep records of facts forgotten since. The
 * engine rewrites them once, in the background, in short transactions (RecallBlockUpgrade): a
 * citation outside the block's own team becomes its opaque ref, and a record of a fact that no
 * longer exists goes. The task row is dropped when every block is done.
 */
export const up = `
CREATE TABLE upgrade_tasks (
  name       TEXT PRIMARY KEY,
  -- Where the task got to (a rowid of session_messages): a restart resumes after it.
  progress   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO upgrade_tasks (name)
  SELECT 'recall-block-citations' WHERE EXISTS (SELECT 1 FROM session_messages WHERE model_context = 'memory_recall');
`;
