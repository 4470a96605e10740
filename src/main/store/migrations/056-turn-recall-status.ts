/**
 * A turn whose automatic recall failed goes on without memory; the reason is kept on its user
 * message (at most 300 characters), so the transcript can show which turns ran without memory.
 */
export const up = `
ALTER TABLE session_messages ADD COLUMN recall_degraded TEXT;
`;
