export const fmtTime = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

export const shortId = (id: string): string => (id.length > 12 ? `…${id.slice(-8)}` : id);

export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;
