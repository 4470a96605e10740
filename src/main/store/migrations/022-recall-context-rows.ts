/**
 * Marks durable model-context rows: a persisted recall block names what it is
 * (`memory_recall`) and the user message it was built for, so a turn's recall is built once and
 * replayed byte for byte, and no reader mistakes it for a real user request.
 */
export const up = `
ALTER TABLE session_messages ADD COLUMN model_context TEXT;
ALTER TABLE session_messages ADD COLUMN model_context_for TEXT;
CREATE INDEX session_messages_model_context ON session_messages(model_context_for) WHERE model_context IS NOT NULL;
`;
