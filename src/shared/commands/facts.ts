import { z } from 'zod';
import { defineCommand } from './define';
import { fieldHelp } from './field-help';
import {
  confidence,
  evidenceRecord,
  factKind,
  factRecord,
  forgetWikiReport,
  id,
  recallMode,
  scope,
  scopeRef,
} from '../schemas';
import { COERCION_REASONS, FACT_TEXT_MAX } from '../domain';
import { normalizedText } from '../whitespace';

export const FACT_SORTS = ['reinforcement', 'confidence', 'recency', 'relevance'] as const;

/** A fact's text as every write stores it: NFC, whitespace collapsed, 1-500 characters. */
const factText = z
  .string()
  .transform(normalizedText)
  .pipe(z.string().min(1, 'must not be empty').max(FACT_TEXT_MAX, `must be at most ${FACT_TEXT_MAX} characters`));

const actor = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100)
  .default('person')
  .describe('Who makes the change, recorded in the fact history (the desktop window sends "window")');

/** The filters facts.list and facts.count share. */
const factFilter = {
  scope: scope.optional().describe('Only facts of this scope type'),
  scopeKey: z
    .string()
    .max(4096)
    .optional()
    .describe('Only facts of this scope key (project id, workspace path, folder id, session id); needs scope'),
  kind: factKind.optional().describe('Only facts of this kind'),
  text: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe(
      'Words to look for: a fact matches when it holds any of them (inflections too, the last word as a prefix)',
    ),
  sessionId: id.optional().describe('Only facts with evidence from this session'),
  recall: recallMode.optional().describe('Only normal, pinned or paused facts'),
};

const historyEntry = z.object({
  at: z.number().int(),
  actor: z.string(),
  change: z.enum(['create', 'edit', 'merge', 'pin', 'unpin', 'pause', 'resume']),
  previous: z.object({
    text: z.string().nullable(),
    kind: factKind.nullable(),
    scope: scope.nullable(),
    scopeKey: z.string().nullable(),
    confidence: confidence.nullable(),
    recall: recallMode.nullable(),
  }),
  note: z.string().nullable(),
});

const forgottenFact = z.object({ id: z.string(), text: z.string(), scope: z.string(), scopeKey: z.string() });

/** The fields of one observed fact: facts.add and each item of facts.addBatch. */
const observedFact = () => ({
  messageId: id.optional().describe("The session's message that states the fact, cited as its evidence."),
  text: factText.describe(
    `The fact, one short statement (at most ${FACT_TEXT_MAX} characters), e.g. "We deploy with Docker Compose".`,
  ),
  kind: factKind
    .default('fact')
    .describe(fieldHelp.kind)
    .meta({ examples: ['decision', 'preference'] }),
  scope: scope
    .default('session')
    .describe(`${fieldHelp.scope} Coerced to one the session may write; user only for preference and profile.`)
    .meta({ examples: ['project', 'user'] }),
  confidence: confidence.default('medium').describe(fieldHelp.confidence),
});

/** Facts one facts.addBatch call takes (one transaction). */
export const FACT_BATCH_MAX = 1000;

/** What happened to one fact of a batch: the stored fact's id and scope (after coercion). */
const batchResult = () =>
  z.object({
    id: z.string(),
    scope,
    /** Set when the store coerced the scope: why (see facts.add). */
    coercionReason: z.enum(COERCION_REASONS).nullable(),
    created: z.boolean(),
    reinforced: z.boolean(),
    unchanged: z.boolean(),
  });

export const factCommands = {
  'facts.list': defineCommand({
    description: 'Browse semantic facts by scope, scope key, kind and text; keyset-paginated.',
    mutates: false,
    input: () =>
      z
        .object({
          ...factFilter,
          sort: z
            .enum(FACT_SORTS)
            .default('reinforcement')
            .describe('Order: reinforcement, confidence, recency, or relevance to text (needs text)'),
          cursor: z.string().max(500).optional().describe('nextCursor from the previous page'),
          limit: z.number().int().min(1).max(500).default(50).describe('Facts per page'),
        })
        .strict(),
    output: () => z.object({ facts: z.array(factRecord), nextCursor: z.string().nullable() }),
  }),
  'facts.count': defineCommand({
    description: 'How many facts match the same filters as facts.list (the real total, not a page).',
    mutates: false,
    input: () => z.object(factFilter).strict(),
    output: () => z.object({ total: z.number().int() }),
  }),
  'facts.get': defineCommand({
    description: 'One fact with its evidence: every supporting session and the message that established it.',
    mutates: false,
    input: () => z.object({ factId: id.describe('The fact id') }).strict(),
    output: () =>
      factRecord.extend({
        evidence: z.array(evidenceRecord),
        /** Where facts.update may move it: scopes every supporting session sees (user only for preferences and profile). */
        scopeChoices: z.array(scopeRef),
      }),
  }),
  'facts.update': defineCommand({
    description:
      "Correct a fact: its text, kind, scope (one its supporting sessions all see; user only for preferences and profile) and confidence. The previous values are kept in the fact's history and the fact is re-indexed for recall. An edit that makes it equal to another fact in the same scope is refused unless merge is set.",
    mutates: true,
    input: () =>
      z
        .object({
          factId: id.describe('The fact to change'),
          text: factText.optional().describe('The new wording'),
          kind: factKind.optional().describe('The new kind'),
          scope: scope.optional().describe('The new scope type (see facts.get scopeChoices)'),
          scopeKey: z
            .string()
            .max(4096)
            .optional()
            .describe('The new scope key; may be left out when the scope type has one choice'),
          confidence: confidence.optional().describe('The new confidence'),
          merge: z
            .boolean()
            .default(false)
            .describe('When the edited fact equals another one in its scope, merge the two instead of refusing'),
          actor,
        })
        .strict(),
    output: () => z.object({ fact: factRecord, changed: z.boolean(), mergedInto: z.string().nullable() }),
  }),
  'facts.create': defineCommand({
    description:
      'Add a fact by hand for a context: user scope (preferences and profile only), or an existing project, workspace, folder or session. The same text in the same scope returns the existing fact.',
    mutates: true,
    input: () =>
      z
        .object({
          text: factText.describe('What to remember'),
          kind: factKind.default('fact').describe('The kind of fact'),
          scope: scope.describe('Where it applies'),
          scopeKey: z
            .string()
            .trim()
            .max(4096)
            .default('')
            .describe('The project id, workspace path, folder id or session id (empty for user scope)'),
          confidence: confidence.default('high').describe('How sure it is'),
          actor,
        })
        .strict(),
    output: () => z.object({ fact: factRecord, created: z.boolean() }),
  }),
  'facts.pin': defineCommand({
    description: 'Pin a fact (always a recall candidate for its scope) or unpin it. Pinning a paused fact resumes it.',
    mutates: true,
    input: () =>
      z
        .object({
          factId: id.describe('The fact to pin or unpin'),
          pinned: z.boolean().default(true).describe('true pins, false unpins'),
          actor,
        })
        .strict(),
    output: () => z.object({ fact: factRecord, changed: z.boolean() }),
  }),
  'facts.pause': defineCommand({
    description: 'Pause a fact (kept and listed, never recalled) or resume it. Pausing a pinned fact unpins it.',
    mutates: true,
    input: () =>
      z
        .object({
          factId: id.describe('The fact to pause or resume'),
          paused: z.boolean().default(true).describe('true pauses, false resumes'),
          actor,
        })
        .strict(),
    output: () => z.object({ fact: factRecord, changed: z.boolean() }),
  }),
  'facts.history': defineCommand({
    description: "A fact's recorded changes, newest first: who, when, what, and the values it replaced.",
    mutates: false,
    input: () => z.object({ factId: id.describe('The fact id') }).strict(),
    output: () => z.object({ entries: z.array(historyEntry) }),
  }),
  'facts.add': defineCommand({
    description:
      'Record a fact observed in a session, through the same validation and scope coercion as extraction. The session is the evidence.',
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session that observed the fact; it becomes the evidence.'),
          ...observedFact(),
        })
        .strict(),
    output: () =>
      z.object({
        fact: factRecord,
        created: z.boolean(),
        reinforced: z.boolean(),
        unchanged: z.boolean(),
      }),
  }),
  'facts.addBatch': defineCommand({
    description: `Record up to ${FACT_BATCH_MAX} facts observed in one session in one transaction, each validated, secret-checked and scope-coerced exactly like facts.add. One bad fact refuses the whole batch (the error names it, e.g. facts.3.text) and nothing is written.`,
    mutates: true,
    input: () =>
      z
        .object({
          sessionId: id.describe('The session that observed the facts; it becomes their evidence.'),
          facts: z
            .array(z.object(observedFact()).strict())
            .min(1, 'must hold at least one fact')
            .max(FACT_BATCH_MAX, `must hold at most ${FACT_BATCH_MAX} facts (send more in several batches)`)
            .describe(
              `The facts, 1 to ${FACT_BATCH_MAX}, each as for facts.add: {"text": "We deploy with Docker Compose", "kind": "decision", "scope": "project"}.`,
            ),
        })
        .strict(),
    output: () =>
      z.object({
        /** One entry per input fact, in order. */
        results: z.array(batchResult()),
        created: z.number().int(),
        reinforced: z.number().int(),
        unchanged: z.number().int(),
      }),
  }),
  'facts.delete': defineCommand({
    description: 'Forget one fact and its evidence. With dryRun, only report.',
    mutates: true,
    input: () =>
      z
        .object({
          factId: id.describe('The fact to forget.'),
          dryRun: z.boolean().default(false).describe(fieldHelp.dryRun),
        })
        .strict(),
    output: () =>
      z.object({
        dryRun: z.boolean(),
        fact: forgottenFact,
        evidenceRemoved: z.number().int(),
        wiki: forgetWikiReport,
      }),
  }),
  'scopes.resolve': defineCommand({
    description: 'The scopes a session sees (most specific first) and where its writes land.',
    mutates: false,
    input: () => z.object({ sessionId: id.describe('The session whose scopes to show.') }).strict(),
    output: () =>
      z.object({
        sessionId: z.string(),
        ownerSessionId: z.string(),
        visible: z.array(scopeRef),
      }),
  }),
  'scopes.list': defineCommand({
    description:
      'The contexts that exist: the user scope, projects, workspaces and folders of sessions, and top-level sessions, each with its fact count (facts stored at that scope) and sessions; filterable by type and text, newest sessions first.',
    mutates: false,
    input: () =>
      z
        .object({
          scope: scope.optional().describe('Only this scope type'),
          query: z.string().trim().max(200).optional().describe('Only contexts whose key or title contains this text'),
          limit: z.number().int().min(1).max(500).default(100).describe('At most this many contexts per scope type'),
        })
        .strict(),
    output: () =>
      z.object({
        contexts: z.array(
          z.object({
            scope,
            key: z.string(),
            /** A session's title (else its id); the key for the others. */
            label: z.string(),
            facts: z.number().int(),
            sessions: z.number().int(),
            /** Newest activity: the newest session's creation time. */
            lastActiveAt: z.number().int().nullable(),
          }),
        ),
        /** Contexts per scope type before the limit. */
        totals: z.record(z.string(), z.number().int()),
      }),
  }),
} as const;
