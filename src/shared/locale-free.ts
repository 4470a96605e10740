// Number formatting and string ordering without the locale machinery: a long-running process that
// calls `toLocaleString` or `localeCompare` once pages in several MB of ICU data (about 6 MB for
// a number, 4 MB for a collator) and keeps it resident for its whole life.

/** 1234567 -> "1,234,567". */
export function groupDigits(n: number): string {
  const [whole = '', fraction] = String(n).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** Orders by UTF-16 code units: the same order on every machine, whatever its locale. */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
