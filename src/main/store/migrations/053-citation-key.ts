/**
 * The key behind opaque citation references. A citation an agent receives for evidence outside
 * its context names neither session nor message: it carries `ref:e:<fact seq>:<tag>` or
 * `ref:m:<message rowid>:<tag>`, where the tag is an HMAC of the cited session and message under
 * this key. The owner's doors resolve a ref by recomputing the tag over the few rows it can
 * point at; nobody without the key can forge one or test a guessed session id against it, and
 * once the cited evidence is forgotten the ref resolves to nothing (an HMAC cannot be inverted).
 */
export const up = `
CREATE TABLE citation_key (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  key BLOB NOT NULL CHECK (length(key) = 32)
);
INSERT INTO citation_key (id, key) VALUES (1, randomblob(32));
`;
