import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { manualDream } from '../unit/dream-fixtures';

const res = testResources();
afterEach(() => res.release());

const at = (h: number, m = 0, day = 1) => Date.UTC(2026, 0, day, h, m);
let bump = 0;
/** Writes settings.yaml by hand with a distinct mtime, as an editor would. */
function editSettings(file: string, text: string) {
  writeFileSync(file, text);
  const when = new Date(Date.now() + 10_000 + ++bump * 1000);
  utimesSync(file, when, when);
}

describe('dream status in a long-running process', () => {
  it('shows the next run of the schedule just edited in settings.yaml, before any tick', async () => {
    const t = res.engine();
    t.clock.set(at(0));
    editSettings(t.engine.paths.settings, 'dream: {enabled: true, schedule: "0 2 * * *"}\n');
    const dream = manualDream(t.engine);
    dream.start();
    expect((await dream.status()).nextRunAt).toBe(at(2));

    editSettings(t.engine.paths.settings, 'dream: {enabled: true, schedule: "30 5 * * *"}\n');
    expect(await dream.status()).toMatchObject({ schedule: '30 5 * * *', nextRunAt: at(5, 30) });
    // The scheduler itself follows the same plan: nothing fires at 02:00.
    t.clock.set(at(2));
    expect(await dream.scheduler.tick()).toBe(false);

    editSettings(t.engine.paths.settings, 'dream: {enabled: false, schedule: "30 5 * * *"}\n');
    expect(await dream.status()).toMatchObject({ enabled: false, nextRunAt: null });
    await dream.stop();
  });
});

describe('dream config keeps the comments of settings.yaml', () => {
  it('a comments-only file keeps every comment', async () => {
    const t = res.engine();
    const file = t.engine.paths.settings;
    editSettings(file, '# EvoFlux settings, managed by hand\n# dream: nightly consolidation\n');
    await t.run('dream.config.set', { enabled: true, schedule: '0 4 * * *' });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# EvoFlux settings, managed by hand\n# dream: nightly consolidation');
    expect(text).toMatch(/dream:\n\s+enabled: true\n\s+schedule: 0 4 \* \* \*/);
    expect(await t.run('dream.config.get', {})).toEqual({ enabled: true, schedule: '0 4 * * *' });
  });

  it('comments around existing keys survive too, through the CLI', () => {
    const home = res.home();
    const file = path.join(home, 'settings.yaml');
    writeFileSync(file, '# top\ndream:\n  # when to run\n  schedule: "0 2 * * *" # nightly\n  enabled: false\n# end\n');
    const r = runCli(['dream', 'config', '--home', home, '--enabled', 'true']);
    expect(r.status, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    for (const c of ['# top', '# when to run', '# nightly', '# end']) expect(text).toContain(c);
    expect(text).toContain('enabled: true');
  });
});

describe('daily notes are append-only until Dream has consumed them', () => {
  it('refuses to delete a note with entries Dream has not consumed; allows it once consumed', async () => {
    const t = res.engine();
    await t.run('wiki.notes.append', { content: 'decided to use Helm' });
    const note = `notes/${readdirSync(path.join(t.engine.paths.wiki, 'notes'))[0]}`;
    await expect(t.run('wiki.delete', { path: note })).rejects.toMatchObject({ code: 'forbidden', field: 'path' });
    await expect(t.run('wiki.delete', { path: note })).rejects.toThrow(/not yet consumed by Dream/);

    await t.run('dream.run', { drain: true });
    await t.run('wiki.notes.append', { content: 'and Argo for rollouts' });
    // A new entry since Dream's run: unconsumed again.
    await expect(t.run('wiki.delete', { path: note })).rejects.toMatchObject({ code: 'forbidden' });

    await t.run('dream.run', { drain: true });
    expect(await t.run('wiki.delete', { path: note })).toEqual({ path: note });
    expect(readdirSync(path.join(t.engine.paths.wiki, 'notes'))).toEqual([]);
    expect((await t.run('dream.status', {})).pendingNotes).toBe(0);
  });
});
