import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { tempHome } from '../helpers/home';
import { chatgptExport, writeChatGptExport } from '../fixtures/history-exports';
import {
  cli,
  ensureRendererBuilt,
  openBrowser,
  screenshot,
  startServe,
  type BrowserHandle,
  type Served,
} from './support';

/**
 * The window's "Import history" in Chromium against `serve`: choose a file, a context and the
 * format, watch the progress bar, read the summary; the export travels as an upload to the HTTP
 * door (a browser has no path to give).
 */
describe('Import history in the window', () => {
  const home = tempHome('evoflux-e2e-import-');
  const files = tempHome('evoflux-e2e-import-files-');
  let served: Served;
  let browser: BrowserHandle;
  let page: Page;
  const pageErrors: string[] = [];
  const small = path.join(files.dir, 'conversations.json');
  const large = path.join(files.dir, 'large-conversations.json');
  const notes = path.join(files.dir, 'notes.txt');

  beforeAll(async () => {
    ensureRendererBuilt();
    writeFileSync(small, JSON.stringify(chatgptExport()));
    writeFileSync(notes, 'Dear diary');
    await writeChatGptExport(large, { conversations: 400, messagesPer: 30, startSeconds: 1_600_000_000 });
    served = await startServe(home.dir);
    browser = await openBrowser();
    page = browser.page;
    page.on('pageerror', (e) => pageErrors.push(e.message));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    expect(await served?.stop(), served?.stderr()).toBe(0);
    home.cleanup();
    files.cleanup();
  });

  async function importFile(file: string, context?: { label: string; key: string }) {
    await page.setInputFiles('[data-testid="import-file"]', file);
    if (context) {
      await page.getByRole('radio', { name: context.label }).check();
      await page.fill('[data-testid="import-context-key"]', context.key);
    }
    await page.click('[data-testid="import-submit"]');
  }

  it('imports a ChatGPT export into the chosen project and shows the summary', async () => {
    await page.goto(served.browserUrl);
    await page.click('nav >> text=Import history');
    await page.waitForSelector('[data-testid="import-view"]');
    // Nothing to import without a file; a context needs its key.
    expect(await page.isDisabled('[data-testid="import-submit"]')).toBe(true);
    expect(await page.inputValue('[data-testid="import-format"]')).toBe('auto');
    await importFile(small, { label: 'Project', key: 'travel' });
    const summary = page.locator('[data-testid="import-summary"]');
    await summary.waitFor();
    const text = await summary.innerText();
    expect(text).toContain('2 new conversations');
    expect(text).toContain('10 messages added');
    expect(await page.locator('[data-testid="import-problems"]').innerText()).toContain(
      'has no user or assistant messages with text',
    );
    await screenshot(page, 'import-01-summary');
    const sessions = cli(home.dir, ['sessions', 'list']).sessions;
    expect(sessions.map((s: { title: string; projectId: string }) => [s.title, s.projectId]).sort()).toEqual([
      ['Billing database', 'travel'],
      ['Trip planning', 'travel'],
    ]);
  });

  it('importing the same file again adds nothing', async () => {
    await importFile(small);
    const summary = page.locator('[data-testid="import-summary"]');
    await expect
      .poll(() => summary.innerText())
      .toContain('0 new conversations, 0 with new messages, 2 already imported');
    expect(cli(home.dir, ['sessions', 'list']).sessions).toHaveLength(2);
  });

  it('shows a progress bar while a large export is imported, then the summary', async () => {
    await page.getByRole('radio', { name: 'None' }).check();
    await importFile(large);
    const progress = page.locator('[data-testid="import-progress"]');
    await progress.waitFor();
    expect(['uploading', 'importing']).toContain(await progress.getAttribute('data-step'));
    await screenshot(page, 'import-02-progress');
    await expect
      .poll(() => page.locator('[data-testid="import-summary"]').innerText(), { timeout: 120_000 })
      .toContain('400 new conversations');
    expect(await page.locator('[data-testid="import-summary"]').innerText()).toContain('12,000 messages added');
  }, 150_000);

  it('on the desktop, takes the path from the native dialog and imports it through the contract', async () => {
    // The renderer as the Electron shell runs it: a preload bridge instead of HTTP. This stand-in
    // forwards calls to serve and answers the dialog with a path, as main would.
    const desktop = await browser.context.newPage();
    const token = served.browserUrl.split('#token=')[1]!;
    const jsonl = path.resolve(__dirname, '../../resources/import-samples/conversations.jsonl');
    await desktop.addInitScript(
      ({ token, picked }) => {
        const call = async (name: string, input: unknown) => {
          const r = await fetch(`/api/commands/${name}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(input ?? {}),
          });
          const body = await r.json();
          return r.ok ? { ok: true, value: body } : { ok: false, error: body.error };
        };
        Object.defineProperty(window, 'evoflux', {
          value: Object.freeze({ call, pickImportFile: async () => picked }),
        });
      },
      { token, picked: jsonl },
    );
    await desktop.goto(`${served.url}/#/import`);
    expect(await desktop.locator('[data-testid="transport"]').innerText()).toContain('IPC');
    expect(await desktop.locator('[data-testid="import-file"]').count()).toBe(0);
    await desktop.click('[data-testid="import-pick"]');
    await desktop.getByText(jsonl).waitFor();
    await desktop.click('[data-testid="import-submit"]');
    const summary = desktop.locator('[data-testid="import-summary"]');
    await summary.waitFor();
    expect(await summary.innerText()).toContain('2 new conversations');
    await screenshot(desktop, 'import-04-desktop');
    await desktop.close();
  });

  it('names the file and the position when the file is not an export', async () => {
    await importFile(notes);
    const error = page.locator('[data-testid="import-error"]');
    await error.waitFor();
    expect(await error.innerText()).toContain('notes.txt: byte 0: is not JSON');
    await screenshot(page, 'import-03-error');
    expect(pageErrors).toEqual([]);
  });
});
