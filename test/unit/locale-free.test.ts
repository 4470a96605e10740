import { describe, expect, it } from 'vitest';
import { compareCodeUnits, groupDigits } from '../../src/shared/locale-free';

describe('locale-free formatting and ordering', () => {
  it('groups digits in threes the way en-US does', () => {
    for (const n of [0, 7, 999, 1000, 12345, 1234567, 1_000_000_000, 5123, 0.5, 1234.5678, -1234567]) {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US', { maximumFractionDigits: 20 }));
    }
  });

  it('orders by code units, capitals before lower case, and says equal only for equal strings', () => {
    expect(['b', 'B', 'a', 'a-b', 'a/b'].sort(compareCodeUnits)).toEqual(['B', 'a', 'a-b', 'a/b', 'b']);
    expect(compareCodeUnits('same', 'same')).toBe(0);
    expect(compareCodeUnits('x', 'y')).toBe(-1);
    expect(compareCodeUnits('y', 'x')).toBe(1);
  });
});
