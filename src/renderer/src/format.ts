const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A time in the viewer's local zone (the UTC instant is in the element's title where shown). */
export const fmtTime = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : dateTime.format(new Date(ms));

export const fmtDate = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : dateOnly.format(new Date(ms));

/** The same instant in UTC, for titles and the schedule. */
export const fmtUtc = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** "2026-04-29 02:00 UTC" (LOG.md) -> epoch ms, or null. */
export function parseUtcStamp(stamp: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})(?: UTC)?$/.exec(stamp.trim());
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

export const shortId = (id: string): string => (id.length > 12 ? `…${id.slice(-8)}` : id);

export const plural = (n: number, word: string, many = `${word}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;

export const fmtBytes = (n: number): string => {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
};

/** A session as people know it: its title and the day it started (not an id fragment). */
export const sessionName = (s: { id: string; title: string | null; createdAt?: number }): string =>
  `${s.title || `Untitled session ${shortId(s.id)}`}${s.createdAt !== undefined ? ` (${fmtDate(s.createdAt)})` : ''}`;
