import type { JobProgress } from '../events';

/** At most this many redraws a second, plus the last one. */
const REDRAW_MS = 100;

export interface ProgressLine {
  update(p: JobProgress): void;
  /** Ends the line, if one was drawn. */
  end(): void;
}

function rateText(done: number, ms: number): string {
  if (ms <= 0) return '';
  const perSecond = (done * 1000) / ms;
  return `, ${perSecond >= 10 ? Math.round(perSecond) : perSecond.toFixed(1)}/s`;
}

/**
 * One self-overwriting line on a terminal: `legacy import: 120/401 sessions (30%, 85/s)`.
 * `write` gets raw text (no newline added); the clock is injectable for tests.
 */
export function progressLine(
  write: (chunk: string) => void,
  now: () => number = () => performance.now(),
): ProgressLine {
  let job: { name: string; startedAt: number } | null = null;
  let drawnAt = -Infinity;
  let drawn = false;
  return {
    update(p) {
      const t = now();
      if (job?.name !== p.job) {
        if (drawn) write('\n');
        job = { name: p.job, startedAt: t };
        drawn = false;
      }
      if (p.done < p.total && t - drawnAt < REDRAW_MS) return;
      drawnAt = t;
      const percent = p.total > 0 ? `${Math.floor((100 * p.done) / p.total)}%` : '-';
      write(`\r${p.job}: ${p.done}/${p.total} ${p.unit} (${percent}${rateText(p.done, t - job.startedAt)})\x1b[K`);
      drawn = true;
    },
    end() {
      if (drawn) write('\n');
      drawn = false;
      job = null;
    },
  };
}
