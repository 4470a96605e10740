/**
 * A whitespace run that is not already a single space. Replacing only these gives the text that
 * replacing every run with one space gives, at a third of the cost: most runs are single spaces,
 * and every replaced match allocates (a bulk write collapses each fact's text).
 */
const UNCOLLAPSED_SPACE = /\s{2,}|[^\S ]/gu;

/** Whitespace runs collapsed to one space, ends trimmed. */
export const collapseSpace = (text: string): string => text.replace(UNCOLLAPSED_SPACE, ' ').trim();

/** NFC with whitespace runs collapsed: the form facts are stored in and queries are read in. */
export const normalizedText = (text: string): string => collapseSpace(text.normalize('NFC'));
