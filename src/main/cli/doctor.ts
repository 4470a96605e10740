import { fmtTime, type CliViews } from './framework';
import { CommandError } from '../../shared/errors';
import type { DoctorReport } from '../system/doctor';

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

function lockLine(l: DoctorReport['locks'][number]): string {
  if (!l.held) return `${l.name} free`;
  const since = l.since !== null ? ` since ${fmtTime(l.since)}` : '';
  return `${l.name} held by pid ${l.pid ?? '?'} on ${l.host ?? '?'}${l.purpose ? ` (${l.purpose})` : ''}${since}`;
}

function walCheckpointsLine(c: DoctorReport['database']['walCheckpoints']): string {
  const last = c.lastMs === null ? '' : `, the last ${c.lastMs.toFixed(1)} ms`;
  const failed = c.failures ? `, ${c.failures} failed (${c.lastError ?? 'no error since'})` : '';
  return `${c.runs} between requests by this process${last}${failed}`;
}

export function doctorText(r: DoctorReport): string {
  const p = r.pending;
  const legacy = p.legacyImport.pending
    ? `legacy import in progress (${p.legacyImport.sessionsImported} sessions so far)`
    : `legacy import done (${p.legacyImport.sessionsImported} sessions)`;
  return [
    `EvoFlux Memory ${r.version} (node ${r.node}, ${r.process.kind} pid ${r.process.pid})`,
    `home:       ${r.home}`,
    `schema:     ${r.schema.version} (this build: ${r.schema.latest})`,
    `database:   ${mb(r.database.bytes)}, WAL ${mb(r.database.walBytes)}  ${r.database.path}`,
    `checkpoint: ${walCheckpointsLine(r.database.walCheckpoints)}`,
    `read lane:  ${r.readLane.ok ? `ok, ${r.readLane.roundTripMs} ms round trip` : `FAILED: ${r.readLane.error}`}`,
    `sqlite:     ${r.nativeBinding.sqliteVersion} (${r.nativeBinding.path ?? 'better-sqlite3 from node_modules'})`,
    `locks:      ${r.locks.length ? r.locks.map(lockLine).join('; ') : '(none yet)'}`,
    `pending:    extraction ${p.extraction.processing} running, ${p.extraction.failed} failed; ${legacy}; ` +
      `${p.indexMaintenance.factIndexPurges} index purge(s); ` +
      `${p.historyImport.extractionOwed} imported session(s) owed extraction`,
    `settings:   ${r.settings.problems.length ? `${r.settings.problems.length} problem(s) in ${r.settings.file}` : 'ok'}`,
    ...r.settings.problems.map((s) => `  - ${s.key}: ${s.reason}`),
    `log:        ${r.log.file} (${mb(r.log.bytes)})`,
    ...r.warnings.filter((w) => !w.startsWith('settings:')).map((w) => `warning:    ${w}`),
    r.ok ? 'status:     ok' : `status:     BROKEN\n${r.problems.map((x) => `  - ${x}`).join('\n')}`,
  ].join('\n');
}

/**
 * `evoflux-memory system doctor` (also `doctor`): the report, and exit code 1 for scripts when
 * something is broken, with the reasons on stderr.
 */
export const doctorViews: CliViews = {
  'system.doctor': {
    text: doctorText,
    printFailed: true,
    check: (report) => {
      if (!report.ok) throw new CommandError('unavailable', `doctor: ${report.problems.join('; ')}`);
    },
  },
};
