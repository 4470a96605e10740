import { fmtTime, table, type CliViews } from './framework';
import { CommandError } from '../../shared/errors';
import type { Contract, OutputOf } from '../../shared/contract';

type RunOutput = OutputOf<Contract['extraction.run']>;

function describeRun(r: RunOutput): string {
  const lines = [
    `${r.outcome} (${r.extractor}): session ${r.sessionId}, messages #${r.fromSeq}..#${r.cursorSeq} in ${r.windows} window(s)`,
    `  ${r.messagesRead} message(s) read, ${r.candidates} candidate(s), ${r.factsStored} fact(s) stored ` +
      `(${r.factsCreated} new, ${r.factsReinforced} reinforced), ${r.rejected} rejected`,
  ];
  const reasons = Object.entries(r.rejections).map(([k, n]) => `${k} x${n}`);
  if (reasons.length) lines.push(`  rejected: ${reasons.join(', ')}`);
  if (r.behind) lines.push('  more input remains after the cursor; run again to continue');
  return lines.join('\n');
}

/** A failed run exits 1 with its error; the cursor is unchanged and retryable. */
function failedAsError(r: RunOutput): void {
  if (r.outcome === 'failed') {
    throw new CommandError(
      'unavailable',
      `extraction failed for session ${r.sessionId}: ${r.error} (cursor unchanged at #${r.cursorSeq}; retry with: extract retry --session ${r.sessionId})`,
    );
  }
}

type StatusOutput = OutputOf<Contract['extraction.status']>;

const STATUS_HEADER = [
  'SESSION',
  'STATUS',
  'CURSOR',
  'RESPONSES',
  'PENDING',
  'ATTEMPTS',
  'FACTS',
  'REJECTED',
  'NEXT ATTEMPT',
  'LAST ERROR',
];

const statusRow = (s: StatusOutput['sessions'][number]) => [
  s.sessionId,
  s.status + (s.leaseLive ? ' (leased)' : ''),
  `#${s.cursorSeq}`,
  `${s.lastResponseCount}/${s.completedResponses}${s.due ? ' due' : ''}`,
  String(s.pendingMessages),
  String(s.attempts),
  String(s.factsStored),
  String(s.candidatesRejected),
  s.nextAttemptAt !== null && s.status === 'failed' ? fmtTime(s.nextAttemptAt) : '-',
  s.lastError ?? (s.leaseLive && s.leaseExpiresAt ? `lease ${s.leaseOwner} until ${fmtTime(s.leaseExpiresAt)}` : ''),
];

function legacyImportReport(r: OutputOf<Contract['import.legacy']>): string {
  if (r.skipped) return `already imported (sentinel ${r.sentinel}); use --force to import again`;
  return [
    `${r.interrupted ? 'interrupted' : 'imported'} from ${r.source}: ${r.files} file(s), ${r.bullets} bullet(s)`,
    `  ${r.sessions} session(s) imported, ${r.sessionsAlreadyImported} already imported, ${r.sessionsMissing} missing`,
    `  ${r.facts} fact(s) observed (${r.factsCreated} new, ${r.evidenceCreated} new evidence), ${r.rejected} rejected`,
    `  longest write transaction ${r.longestTxMs} ms, ${r.durationMs} ms in all`,
  ].join('\n');
}

export const extractionViews: CliViews = {
  'extraction.run': { text: describeRun, check: failedAsError },
  'extraction.retry': { text: describeRun, check: failedAsError },
  'extraction.status': {
    text: (r) =>
      r.sessions.length
        ? `extractor: ${r.extractor}\n` + table([STATUS_HEADER, ...r.sessions.map(statusRow)])
        : `extractor: ${r.extractor}\nno sessions with completed responses`,
  },
  'import.legacy': { text: legacyImportReport },
};
