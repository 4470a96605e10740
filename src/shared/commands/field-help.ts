import { CONFIDENCES, FACT_KINDS, SCOPES } from '../domain';

/**
 * Descriptions shared by several commands' input fields. They become the CLI's help text and
 * the MCP tools' property descriptions, so they say what a value looks like, with an example.
 */
export const fieldHelp = {
  createdAt:
    'When it really happened, for history loaded later: epoch milliseconds (1767225600000) or ISO-8601 with an offset (2026-01-01T09:30:00Z). Default now; never in the future.',
  cursor: 'Where the next page starts: the nextCursor of the previous page.',
  scope: `A scope: ${SCOPES.join(', ')}.`,
  kind: `A fact kind: ${FACT_KINDS.join(', ')}.`,
  confidence: `How sure the source is: ${CONFIDENCES.join(', ')}.`,
  factText: 'Only facts whose text contains these words, e.g. "postgres".',
  dryRun: 'Only report what would be forgotten; change nothing.',
} as const;
