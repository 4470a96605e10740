import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings, loadSettings, parseSettings } from '../../src/main/settings';
import { testResources } from '../helpers/home';
import { openEngine } from '../../src/main/engine';

const res = testResources();
afterEach(() => res.release());

describe('settings.yaml, key by key', () => {
  it('a bad value falls back for that key only: extraction stays switched off', () => {
    const file = path.join(res.home(), 'settings.yaml');
    writeFileSync(
      file,
      [
        'extraction:',
        '  enabled: false',
        '  every: 5',
        'dream:',
        '  enabled: true',
        '  maxSourcesPerRun: twenty',
        '',
      ].join('\n'),
    );
    const { settings, problems } = loadSettings(file);
    expect(settings.extraction.enabled).toBe(false);
    expect(settings.extraction.every).toBe(5);
    expect(settings.dream.enabled).toBe(true);
    expect(settings.dream.maxSourcesPerRun).toBe(defaultSettings().dream.maxSourcesPerRun);
    expect(problems).toEqual([
      { file, key: 'dream.maxSourcesPerRun', reason: expect.stringMatching(/expected number.*"twenty".*default 20/) },
    ]);
  });

  it('reports unknown keys and sections, sections that are not mappings, bad cron and out-of-range values', () => {
    const { settings, problems } = parseSettings(
      {
        extraction: { enabled: false, firstAfter: 0, typo: 1 },
        llm: 'ollama',
        dream: { schedule: 'every night' },
        log: { level: 'loud' },
        extras: {},
      },
      'S',
    );
    expect(settings.extraction).toMatchObject({ enabled: false, firstAfter: 3 });
    expect(settings.llm).toEqual(defaultSettings().llm);
    expect(settings.dream.schedule).toBe('0 2 * * *');
    expect(settings.log.level).toBe('info');
    expect(problems.map((p) => p.key)).toEqual([
      'extraction.firstAfter',
      'extraction.typo',
      'llm',
      'dream.schedule',
      'log.level',
      'extras',
    ]);
    expect(problems.find((p) => p.key === 'dream.schedule')!.reason).toMatch(/cron/);
    expect(problems.every((p) => p.file === 'S')).toBe(true);
  });

  it('a file that is not YAML gives the defaults and one problem; a missing file none', () => {
    const dir = res.home();
    const file = path.join(dir, 'settings.yaml');
    writeFileSync(file, 'dream: [this is: not valid\n');
    const loaded = loadSettings(file);
    expect(loaded.settings).toEqual(defaultSettings());
    expect(loaded.problems).toEqual([
      { file, key: '(file)', reason: expect.stringMatching(/cannot be parsed as YAML/) },
    ]);
    expect(loadSettings(path.join(dir, 'none.yaml')).problems).toEqual([]);
  });

  it('the engine, dream.status and doctor report the problems; the scheduler keeps the last good value per key', async () => {
    const home = res.home();
    const file = path.join(home, 'settings.yaml');
    writeFileSync(
      file,
      'extraction: {enabled: false}\ndream: {enabled: true, schedule: "0 3 * * *", maxSourcesPerRun: twenty}\n',
    );
    const engine = openEngine({ home });
    try {
      expect(engine.settings.extraction.enabled).toBe(false);
      expect(engine.settingsProblems.map((p) => p.key)).toEqual(['dream.maxSourcesPerRun']);
      const status = await engine.dream.status();
      expect(status).toMatchObject({ enabled: true, schedule: '0 3 * * *' });
      expect(status.settingsProblems).toEqual([expect.objectContaining({ file, key: 'dream.maxSourcesPerRun' })]);

      // An edit with a bad schedule: the schedule keeps its last good value, the other keys apply.
      writeFileSync(file, 'dream: {enabled: true, schedule: "61 * * * *", maxSourcesPerRun: 5}\n');
      const later = new Date(Date.now() + 60_000);
      utimesSync(file, later, later);
      expect(engine.dream.settings()).toMatchObject({ enabled: true, schedule: '0 3 * * *', maxSourcesPerRun: 5 });
      expect((await engine.dream.status()).settingsProblems.map((p) => p.key)).toEqual(['dream.schedule']);

      const { dispatch } = await import('../../src/main/commands/dispatch');
      const { OWNER } = await import('../../src/main/commands/principal');
      const doctor = await dispatch(engine, 'system.doctor', {}, OWNER);
      expect(doctor.ok).toBe(true);
      expect(doctor.settings.problems.map((p) => p.key)).toEqual(['dream.schedule']);
      expect(doctor.warnings.some((w) => w.startsWith('settings: dream.schedule'))).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
