import { Cron } from 'croner';
import { invalid } from '../../shared/errors';

/** A parsed 5-field cron expression evaluated in UTC. */
export function parseSchedule(expr: string, field = 'schedule'): Cron {
  const text = expr.trim();
  if (!text) throw invalid(field, 'must be a cron expression such as "0 2 * * *"');
  try {
    return new Cron(text, { timezone: 'UTC', paused: true, mode: '5-part' });
  } catch (e) {
    throw invalid(
      field,
      `is not a valid 5-field cron expression (minute hour day month weekday): ${(e as Error).message}`,
    );
  }
}

/** The next fire time strictly after `after` (epoch ms), or null if the expression never fires again. */
export function nextFire(expr: string, after: number): number | null {
  const cron = parseSchedule(expr);
  try {
    return cron.nextRun(new Date(after))?.getTime() ?? null;
  } finally {
    cron.stop();
  }
}
