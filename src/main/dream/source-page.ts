import { idSlug } from '../../shared/ids';

/**
 * The one mapping from a session to its Dream source page. Everything that needs the page of a
 * session (Dream writing it, forget removing it, lint and the forget preview finding mentions of
 * it) calls these, so the naming lives here alone.
 */
export const sourcePageStem = (sessionId: string): string => `session-${idSlug(sessionId)}`;

export const sourcePagePath = (sessionId: string): string => `sources/${sourcePageStem(sessionId)}.md`;
