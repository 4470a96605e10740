import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/home';
import { DeterministicConsolidator } from '../../src/main/dream/deterministic';
import { manualDream, sessionWith } from './dream-fixtures';

let t: TestEngine;
beforeEach(() => {
  t = openTestEngine();
});
afterEach(() => t.close());

const at = (h: number, m = 0, day = 1) => Date.UTC(2026, 0, day, h, m);
let bump = 0;
/** Writes settings.yaml by hand with a distinct mtime, as an editor would. */
function editSettings(file: string, text: string) {
  writeFileSync(file, text);
  const when = new Date(Date.now() + 10_000 + ++bump * 1000);
  utimesSync(file, when, when);
}

describe('Dream scheduler', () => {
  it('fires on the cron schedule in UTC, driven by ticks of an injected clock', async () => {
    const dream = manualDream(t.engine);
    dream.start();
    expect(dream.scheduler.nextRunAt).toBeNull();
    expect(await dream.scheduler.tick()).toBe(false);

    await sessionWith(t);
    t.clock.set(at(0));
    expect(await dream.setConfig({ enabled: true, schedule: '0 2 * * *' })).toEqual({
      enabled: true,
      schedule: '0 2 * * *',
    });
    expect(readFileSync(t.engine.paths.settings, 'utf8')).toContain('schedule: 0 2 * * *');
    expect(dream.scheduler.nextRunAt).toBe(at(2));
    expect(await dream.scheduler.tick()).toBe(false);
    expect((await dream.status()).pendingSessions).toBe(1);

    t.clock.set(at(2));
    expect(await dream.scheduler.tick()).toBe(true);
    expect(dream.scheduler.nextRunAt).toBe(at(2, 0, 2));
    const status = await dream.status();
    expect(status).toMatchObject({
      enabled: true,
      schedule: '0 2 * * *',
      nextRunAt: at(2, 0, 2),
      pendingSessions: 0,
      running: false,
    });
    expect(status.lastRuns[0]!.summary).toContain('drain=false');
    expect(await dream.scheduler.tick()).toBe(false);
    await dream.stop();
  });

  it('re-reads settings.yaml when its mtime changes: new schedule adopted, bad file ignored, disable stops firing', async () => {
    const file = t.engine.paths.settings;
    t.clock.set(at(0));
    editSettings(file, 'llm: {model: keep-me}\ndream: {enabled: true, schedule: "0 2 * * *"}\n');
    const dream = manualDream(t.engine);
    dream.start();
    expect(dream.scheduler.nextRunAt).toBe(at(2));

    editSettings(file, 'dream: {enabled: true, schedule: "*/30 * * * *"}\n');
    await dream.scheduler.tick();
    expect(dream.scheduler.nextRunAt).toBe(at(0, 30));

    editSettings(file, 'dream: [this is: not valid\n');
    await dream.scheduler.tick();
    expect(dream.scheduler.nextRunAt).toBe(at(0, 30));

    editSettings(file, 'dream: {enabled: true, schedule: "not a cron"}\n');
    await dream.scheduler.tick();
    expect(dream.scheduler.nextRunAt).toBe(at(0, 30));

    editSettings(file, 'dream: {enabled: false}\n');
    t.clock.set(at(3));
    expect(await dream.scheduler.tick()).toBe(false);
    expect(dream.scheduler.nextRunAt).toBeNull();
    await dream.stop();
  });

  it('config.set validates the cron expression and keeps other settings and comments', async () => {
    const file = t.engine.paths.settings;
    editSettings(file, '# my settings\nllm:\n  model: keep-me # the model\n');
    await expect(t.run('dream.config.set', { schedule: '61 * * * *' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'schedule',
    });
    await expect(t.run('dream.config.set', { schedule: '* * * * * *' })).rejects.toThrow(/5-field/);
    expect(readFileSync(file, 'utf8')).toBe('# my settings\nllm:\n  model: keep-me # the model\n');
    expect(await t.run('dream.config.set', { enabled: true, schedule: '15 3 * * 1' })).toEqual({
      enabled: true,
      schedule: '15 3 * * 1',
    });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my settings');
    expect(text).toContain('model: keep-me # the model');
    expect(await t.run('dream.config.get', {})).toEqual({ enabled: true, schedule: '15 3 * * 1' });
  });

  it('stop() waits for a scheduled run in flight instead of cutting it off', async () => {
    await sessionWith(t);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inner = new DeterministicConsolidator(t.engine.db, t.engine.wiki);
    const dream = manualDream(t.engine, {
      consolidator: () => ({
        name: 'slow',
        consolidate: async (items, today) => {
          await gate;
          return inner.consolidate(items, today);
        },
      }),
    });
    t.clock.set(at(0));
    await dream.setConfig({ enabled: true, schedule: '0 1 * * *' });
    dream.start();
    t.clock.set(at(1));
    const firing = dream.scheduler.tick();
    await new Promise((r) => setImmediate(r));
    expect(dream.scheduler.firing).toBe(true);
    expect((await dream.run({ drain: true })).status).toBe('already_running');
    let stopped = false;
    const stopping = dream.stop().then(() => (stopped = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await firing).toBe(true);
    expect((await dream.status()).pendingSessions).toBe(0);
  });
});
