import { call, flag, fmtTime, int, requireStr, str, table, type CliCommand } from './framework';
import { CommandError } from '../../shared/errors';
import type { Contract, OutputOf } from '../../shared/contract';

type RunOutput = OutputOf<Contract['extraction.run']>;

function describeRun(r: RunOutput): string {
  if (r.outcome === 'failed') return '';
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
function failedAsError(r: RunOutput): RunOutput {
  if (r.outcome === 'failed') {
    throw new CommandError(
      'unavailable',
      `extraction failed for session ${r.sessionId}: ${r.error} (cursor unchanged at #${r.cursorSeq}; retry with: extract retry --session ${r.sessionId})`,
    );
  }
  return r;
}

export const extractionCli: CliCommand[] = [
  {
    path: ['extract', 'run'],
    summary: 'extract facts from a session now, whatever the cadence',
    usage: '--session ID',
    options: { session: { type: 'string' } },
    run: async (ctx, v) => {
      const r = failedAsError(await call(ctx, 'extraction.run', { sessionId: requireStr(v, 'session', 'sessionId') }));
      return { data: r, text: describeRun(r) };
    },
  },
  {
    path: ['extract', 'retry'],
    summary: 'make a failed extraction due now and run it',
    usage: '--session ID',
    options: { session: { type: 'string' } },
    run: async (ctx, v) => {
      const r = failedAsError(
        await call(ctx, 'extraction.retry', { sessionId: requireStr(v, 'session', 'sessionId') }),
      );
      return { data: r, text: describeRun(r) };
    },
  },
  {
    path: ['extract', 'status'],
    summary: 'extraction cursors: status, lease, attempts, last error, next attempt',
    usage: '[--session ID] [--limit N]',
    options: { session: { type: 'string' }, limit: { type: 'string' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'extraction.status', { sessionId: str(v, 'session'), limit: int(v, 'limit') });
      const rows = r.sessions.map((s) => [
        s.sessionId,
        s.status + (s.leaseLive ? ' (leased)' : ''),
        `#${s.cursorSeq}`,
        `${s.lastResponseCount}/${s.completedResponses}${s.due ? ' due' : ''}`,
        String(s.pendingMessages),
        String(s.attempts),
        String(s.factsStored),
        String(s.candidatesRejected),
        s.nextAttemptAt !== null && s.status === 'failed' ? fmtTime(s.nextAttemptAt) : '-',
        s.lastError ??
          (s.leaseLive && s.leaseExpiresAt ? `lease ${s.leaseOwner} until ${fmtTime(s.leaseExpiresAt)}` : ''),
      ]);
      const text = r.sessions.length
        ? `extractor: ${r.extractor}\n` +
          table([
            [
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
            ],
            ...rows,
          ])
        : `extractor: ${r.extractor}\nno sessions with completed responses`;
      return { data: r, text };
    },
  },
  {
    path: ['import', 'legacy'],
    summary: 'import legacy extraction notes (Markdown bullets per source session) as local facts',
    usage: '[--from DIR] [--force]',
    options: { from: { type: 'string' }, force: { type: 'boolean' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'import.legacy', { from: str(v, 'from'), force: flag(v, 'force') });
      const text = r.skipped
        ? `already imported (sentinel ${r.sentinel}); use --force to import again`
        : [
            `${r.interrupted ? 'interrupted' : 'imported'} from ${r.source}: ${r.files} file(s), ${r.bullets} bullet(s)`,
            `  ${r.sessions} session(s) imported, ${r.sessionsAlreadyImported} already imported, ${r.sessionsMissing} missing`,
            `  ${r.facts} fact(s) observed (${r.factsCreated} new, ${r.evidenceCreated} new evidence), ${r.rejected} rejected`,
            `  longest write transaction ${r.longestTxMs} ms, ${r.durationMs} ms in all`,
          ].join('\n');
      return { data: r, text };
    },
  },
];
