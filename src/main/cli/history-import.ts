import { fmtTime, table, type CliViews } from './framework';
import type { Contract, OutputOf } from '../../shared/contract';

type Report = OutputOf<Contract['import.conversations']>;
type Status = OutputOf<Contract['import.status']>;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function extractionLine(e: Report['extraction']): string {
  if (e.waited) {
    return (
      `  extraction: ${plural(e.sessions, 'session')} done, ${e.failed} failed, ${e.pendingSessions} still owed ` +
      `(longest write transaction ${e.longestTxMs} ms)`
    );
  }
  if (e.pendingSessions === 0) return '  extraction: nothing owed';
  return (
    `  extraction: ${plural(e.pendingSessions, 'imported session')} owed; it runs in the background of the ` +
    'desktop app or `serve`, or now with --wait-for-extraction'
  );
}

function importReport(r: Report): string {
  const lines = [
    `${r.interrupted ? 'interrupted (import the same file again to continue)' : 'imported'} ${r.format ?? 'nothing'} from ${r.files.join(', ')}`,
    `  ${plural(r.conversations, 'conversation')}: ${r.conversationsCreated} new, ${r.conversationsUpdated} with new messages, ` +
      `${r.conversationsUnchanged} unchanged, ${r.conversationsSkipped} skipped`,
    `  ${plural(r.messagesAdded, 'message')} added, ${r.messagesAlreadyImported} already imported, ` +
      `${r.messagesSkipped} left out (system, tool, hidden or not text)` +
      (r.timesAdjusted ? `, ${r.timesAdjusted} time(s) moved to keep the order` : '') +
      (r.messagesTruncated ? `, ${r.messagesTruncated} cut to 1,000,000 characters` : ''),
    extractionLine(r.extraction),
    `  longest write transaction ${r.longestTxMs} ms (${r.transactions} in all), ${r.durationMs} ms`,
  ];
  if (r.problemCount) {
    lines.push(
      `problems (${r.problemCount}${r.problemCount > r.problems.length ? `, first ${r.problems.length}` : ''}):`,
    );
    for (const p of r.problems) {
      lines.push(`  ${p.file}: ${p.position}${p.conversationId ? ` [${p.conversationId}]` : ''}: ${p.reason}`);
    }
  }
  return lines.join('\n');
}

function importStatus(s: Status): string {
  const e = s.extraction;
  const head = `imported sessions extraction still owes: ${e.pendingSessions} (${e.runningSessions} running; background ${e.background ? 'on' : 'off'})`;
  if (s.jobs.length === 0) return `${head}\nno imports in this process`;
  const rows = s.jobs.map((j) => [
    j.state,
    j.phase,
    `${Math.round((100 * j.bytesRead) / Math.max(1, j.bytesTotal))}%`,
    String(j.conversations),
    String(j.messagesAdded),
    fmtTime(j.startedAt),
    j.error ? `${j.file}: ${j.error.message}` : j.file,
  ]);
  return `${head}\n${table([['STATE', 'PHASE', 'READ', 'CONVERSATIONS', 'MESSAGES', 'STARTED', 'FILE'], ...rows])}`;
}

export const historyImportViews: CliViews = {
  'import.conversations': { text: importReport },
  'import.status': { text: importStatus },
};
