import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../src/main/settings';
import { refreshSettings } from '../../src/main/settings-live';
import { testResources } from '../helpers/home';

const res = testResources();
afterEach(() => res.release());

describe('live settings', () => {
  it('a home without settings.yaml: nothing to reload until one appears, then its live keys apply', () => {
    const file = path.join(res.home(), 'settings.yaml');
    const owner = { paths: { settings: file }, settings: defaultSettings() };
    expect(refreshSettings(owner)).toBe(false);
    expect(refreshSettings(owner)).toBe(false);
    expect(owner.settings.recall.enabled).toBe(true);

    writeFileSync(file, 'recall:\n  enabled: false\n');
    expect(refreshSettings(owner)).toBe(true);
    expect(owner.settings.recall.enabled).toBe(false);
    expect(refreshSettings(owner)).toBe(false);

    // Removed again: the values in use stay.
    rmSync(file);
    expect(refreshSettings(owner)).toBe(false);
    expect(owner.settings.recall.enabled).toBe(false);

    writeFileSync(file, 'recall:\n  enabled: true\n');
    utimesSync(file, new Date(2030, 0, 1), new Date(2030, 0, 1));
    expect(refreshSettings(owner)).toBe(true);
    expect(owner.settings.recall.enabled).toBe(true);
  });
});
