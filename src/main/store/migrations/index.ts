import * as foundation from './001-foundation';
import * as extractionProgress from './010-extraction-progress';
import * as recallFactIndex from './020-recall-fact-index';
import * as dialogueIndex from './021-dialogue-index';
import * as recallContextRows from './022-recall-context-rows';
import * as deferredFactIndexPurge from './023-deferred-fact-index-purge';
import * as dreamVisibleMessages from './030-dream-visible-messages';
import * as dreamVisibleSummaries from './031-dream-visible-summaries';
import * as dreamEvidenceWatermark from './032-dream-evidence-watermark';
import * as visibleFactOrder from './040-visible-fact-order';
import * as factConfidenceOrder from './041-fact-confidence-order';
import * as integerFactKeys from './050-integer-fact-keys';
import * as dreamUnfinishedRuns from './051-dream-unfinished-runs';
import * as forgetFollowUps from './052-forget-follow-ups';
import * as citationKey from './053-citation-key';
import * as recallRowFacts from './054-recall-row-facts';
import * as recallBlockCitations from './055-recall-block-citations';
import * as turnRecallStatus from './056-turn-recall-status';
import * as factEdits from './080-fact-edits';
import * as extractionRuns from './081-extraction-runs';
import * as conversationImports from './100-conversation-imports';
import * as importDialogueIndex from './101-import-dialogue-index';
import * as scopedFactIndex from './102-scoped-fact-index';
import * as compactFactEvidence from './103-compact-fact-evidence';
import * as compactFactRows from './104-compact-fact-rows';
import * as recallIndexMerges from './105-recall-index-merges';
import * as factIndexEsPlurals from './106-fact-index-es-plurals';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

/**
 * Every schema change, in order. Append only: a shipped migration is never edited.
 * Version ranges by area keep parallel work from colliding: 1-9 foundation, 10-19 extraction,
 * 20-29 recall and search, 30-39 wiki and Dream, 40-49 doors, 50-59 store layout (rebuilds that
 * replace earlier areas' tables, so they run after all of them, then what came after the rebuild:
 * Dream run records, forget follow-ups, citations, turn bookkeeping), 80-89 the window (fact edits,
 * pins, history, the run log the overview draws), 100-109 history imports.
 */
export const migrations: Migration[] = [
  { version: 1, name: 'foundation', up: foundation.up },
  { version: 10, name: 'extraction-progress', up: extractionProgress.up },
  { version: 20, name: 'recall-fact-index', up: recallFactIndex.up },
  { version: 21, name: 'dialogue-index', up: dialogueIndex.up },
  { version: 22, name: 'recall-context-rows', up: recallContextRows.up },
  { version: 23, name: 'deferred-fact-index-purge', up: deferredFactIndexPurge.up },
  { version: 30, name: 'dream-visible-messages', up: dreamVisibleMessages.up },
  { version: 31, name: 'dream-visible-summaries', up: dreamVisibleSummaries.up },
  { version: 32, name: 'dream-evidence-watermark', up: dreamEvidenceWatermark.up },
  { version: 40, name: 'visible-fact-order', up: visibleFactOrder.up },
  { version: 41, name: 'fact-confidence-order', up: factConfidenceOrder.up },
  { version: 50, name: 'integer-fact-keys', up: integerFactKeys.up },
  { version: 51, name: 'dream-unfinished-runs', up: dreamUnfinishedRuns.up },
  { version: 52, name: 'forget-follow-ups', up: forgetFollowUps.up },
  { version: 53, name: 'citation-key', up: citationKey.up },
  { version: 54, name: 'recall-row-facts', up: recallRowFacts.up },
  { version: 55, name: 'recall-block-citations', up: recallBlockCitations.up },
  { version: 56, name: 'turn-recall-status', up: turnRecallStatus.up },
  { version: 80, name: 'fact-edits', up: factEdits.up },
  { version: 81, name: 'extraction-runs', up: extractionRuns.up },
  { version: 100, name: 'conversation-imports', up: conversationImports.up },
  { version: 101, name: 'import-dialogue-index', up: importDialogueIndex.up },
  { version: 102, name: 'scoped-fact-index', up: scopedFactIndex.up },
  { version: 103, name: 'compact-fact-evidence', up: compactFactEvidence.up },
  { version: 104, name: 'compact-fact-rows', up: compactFactRows.up },
  { version: 105, name: 'recall-index-merges', up: recallIndexMerges.up },
  { version: 106, name: 'fact-index-es-plurals', up: factIndexEsPlurals.up },
];
