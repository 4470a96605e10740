import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { tempHome } from '../helpers/home';
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
 * The desktop window in Debian's Chromium against `serve` (the same renderer the Electron shell
 * loads; only the transport differs), on a temp home seeded through the CLI. The extraction
 * model is a local OpenAI-compatible stub that fails until the test lets it answer.
 */

interface Seed {
  kickoff: string;
  followUp: string;
  sideChat: string;
  web: string;
  extractTarget: string;
  kickoffAnswerSeq: number;
}

function seed(home: string): Seed {
  const kickoff = cli(home, ['sessions', 'add', '--project', 'billing', '--title', 'Billing kickoff']).id;
  cli(home, ['messages', 'add', '--session', kickoff, '--role', 'user', 'Which database should billing use?']);
  const answer = cli(home, [
    'messages',
    'add',
    '--session',
    kickoff,
    '--role',
    'assistant',
    'We will use Postgres 16 for billing; invoices are generated nightly.',
  ]);
  const followUp = cli(home, ['sessions', 'add', '--project', 'billing', '--title', 'Billing follow-up']).id;
  const confirm = cli(home, [
    'messages',
    'add',
    '--session',
    followUp,
    '--role',
    'user',
    'Confirm: billing stays on Postgres 16. And I prefer concise answers.',
  ]);
  cli(home, ['messages', 'add', '--session', followUp, '--role', 'assistant', 'Confirmed.']);
  const sideChat = cli(home, [
    'sessions',
    'add',
    '--kind',
    'side-chat',
    '--parent',
    followUp,
    '--title',
    'Side question',
  ]).id;
  cli(home, [
    'messages',
    'add',
    '--session',
    sideChat,
    '--role',
    'user',
    '--hidden',
    '--side-chat-context',
    'Copied context: billing stays on Postgres 16.',
  ]);
  cli(home, ['messages', 'add', '--session', sideChat, '--role', 'user', 'Is Postgres 16 still supported?']);
  const web = cli(home, ['sessions', 'add', '--project', 'web', '--title', 'Web app setup']).id;
  const webMsg = cli(home, ['messages', 'add', '--session', web, '--role', 'user', 'The web app is built with Vite.']);
  const extractTarget = cli(home, ['sessions', 'add', '--project', 'billing', '--title', 'Payments retries']).id;
  cli(home, [
    'messages',
    'add',
    '--session',
    extractTarget,
    '--role',
    'user',
    'Failed payments are retried three times.',
  ]);
  cli(home, [
    'messages',
    'add',
    '--session',
    extractTarget,
    '--role',
    'assistant',
    'Noted: three retries for failed payments.',
  ]);

  const fact = (session: string, message: string, scope: string, kind: string, text: string) =>
    cli(home, ['facts', 'add', '--session', session, '--message', message, '--scope', scope, '--kind', kind, text]);
  fact(kickoff, answer.id, 'project', 'decision', 'Billing uses Postgres 16');
  fact(followUp, confirm.id, 'project', 'decision', 'Billing uses Postgres 16');
  fact(kickoff, answer.id, 'project', 'fact', 'Billing invoices are generated nightly');
  fact(followUp, confirm.id, 'user', 'preference', 'Prefers concise answers');
  fact(web, webMsg.id, 'project', 'convention', 'The web app is built with Vite');
  return { kickoff, followUp, sideChat, web, extractTarget, kickoffAnswerSeq: answer.seq };
}

/** A stand-in OpenAI-compatible endpoint: 503 until `healthy`, then one valid memory. */
function fakeModel(): Promise<{ server: Server; port: number; setHealthy(v: boolean): void; calls(): number }> {
  let healthy = false;
  let calls = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      calls++;
      if (!healthy) {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: 'model is loading' } }));
      }
      const memories = [
        {
          content: 'Failed payments are retried three times',
          kind: 'decision',
          scope: 'project',
          confidence: 'high',
          message: 1,
        },
      ];
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: JSON.stringify({ memories }) } }] }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        setHealthy: (v) => (healthy = v),
        calls: () => calls,
      }),
    ),
  );
}

async function api(served: Served, name: string, input: unknown): Promise<any> {
  const token = served.browserUrl.split('#token=')[1];
  const r = await fetch(`${served.url}/api/commands/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  return r.json();
}

/** Polls with room for a busy two-core machine. */
const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 100 });

const factTexts = (page: Page) => page.locator('[data-testid="facts-list"] .fact-row .row-text').allInnerTexts();

describe('desktop window (Chromium against serve)', () => {
  const home = tempHome('evoflux-e2e-');
  let served: Served;
  let browser: BrowserHandle;
  let page: Page;
  let ids: Seed;
  let model: Awaited<ReturnType<typeof fakeModel>>;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureRendererBuilt();
    model = await fakeModel();
    writeFileSync(
      path.join(home.dir, 'settings.yaml'),
      [
        `llm: { baseUrl: "http://127.0.0.1:${model.port}/v1", model: "stub", timeoutMs: 5000, maxRetries: 0 }`,
        // No background retry sweep: the test decides when the retry happens.
        'extraction: { retrySweepMs: 0 }',
        'dream: { enabled: false }',
        // A value the engine cannot use: the Dream view must say so (the default applies).
        'log: { level: loud }',
        '',
      ].join('\n'),
    );
    ids = seed(home.dir);
    served = await startServe(home.dir);
    browser = await openBrowser();
    page = browser.page;
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && !m.text().includes('favicon') && pageErrors.push(m.text()));
    page.on(
      'response',
      (r) => r.status() >= 400 && pageErrors.push(`HTTP ${r.status()} ${r.url()} ${r.request().postData()}`),
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    // A clean shutdown on SIGTERM, not death by the signal (exit code null).
    expect(await served?.stop(), served?.stderr()).toBe(0);
    model?.server.close();
    home.cleanup();
  });

  it('opens with the token from the fragment and lists every fact', async () => {
    await page.goto(served.browserUrl);
    await page.waitForSelector('[data-testid="facts-list"] .fact-row');
    // The token left the address bar; the page still works on reload (same tab).
    expect(page.url()).not.toContain('token=');
    expect(await page.locator('[data-testid="transport"]').innerText()).toContain('HTTP');
    expect((await factTexts(page)).sort()).toEqual(
      [
        'Billing invoices are generated nightly',
        'Billing uses Postgres 16',
        'Prefers concise answers',
        'The web app is built with Vite',
      ].sort(),
    );
    // Sorted by reinforcement: the fact two sessions support comes first.
    expect((await factTexts(page))[0]).toBe('Billing uses Postgres 16');
    await screenshot(page, '01-facts');
  });

  it('browses by scope and by a project picked from the list of existing ones', async () => {
    const scope = page.locator('[data-testid="filter-scope"]');
    const project = () => page.locator('[data-testid="context-project"]');
    await scope.selectOption('project');
    // The picker lists the projects that exist, with their fact counts.
    await poll(() => project().locator('option').allInnerTexts()).toEqual([
      'any project',
      'billing (2 facts, 3 sessions)',
      'web (1 fact, 1 session)',
    ]);
    await project().selectOption('billing');
    await poll(() => factTexts(page)).toEqual(['Billing uses Postgres 16', 'Billing invoices are generated nightly']);
    await poll(() => page.locator('[data-testid="facts-total"]').innerText()).toBe('2 facts');
    await scope.selectOption('user');
    await poll(() => factTexts(page)).toEqual(['Prefers concise answers']);
    await scope.selectOption('project');
    await project().selectOption('web');
    await poll(() => factTexts(page)).toEqual(['The web app is built with Vite']);
    await project().selectOption('billing');
    await page.fill('#fact-search', 'nightly');
    await poll(() => factTexts(page)).toEqual(['Billing invoices are generated nightly']);
    await page.fill('#fact-search', '');
    await poll(() => factTexts(page)).toHaveLength(2);
    await screenshot(page, '02-facts-project-billing');
  });

  it('opens a fact with the keyboard and follows its evidence to the transcript message', async () => {
    // The list is one Tab stop after the filters; Enter opens the row that has focus.
    await page.focus('#fact-search');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('option');
    await page.keyboard.press('Enter');
    const detail = page.locator('[data-testid="fact-detail"]');
    await poll(() => detail.locator('h2').innerText()).toBe('Billing uses Postgres 16');
    expect(await detail.locator('.props').innerText()).toContain('2 supporting sessions');
    const links = detail.locator('.evidence-link');
    expect(await links.count()).toBe(2);
    await screenshot(page, '03-fact-detail');
    await detail.locator(`.evidence-link[data-session-id="${ids.kickoff}"]`).click();
    await page.waitForSelector('[data-testid="session-detail"]');
    expect(page.url()).toContain(`#/sessions/${ids.kickoff}?msg=${ids.kickoffAnswerSeq}`);
    const focused = page.locator('.message.focused');
    await poll(() => focused.getAttribute('data-seq')).toBe(String(ids.kickoffAnswerSeq));
    expect(await focused.innerText()).toContain('We will use Postgres 16 for billing');
    expect(await page.locator('[data-testid="session-facts"]').innerText()).toContain(
      'Billing invoices are generated nightly',
    );
    await screenshot(page, '04-transcript-at-evidence');
  });

  it('shows hidden side-chat copies as such', async () => {
    await page.goto(`${served.url}/#/sessions/${ids.sideChat}`);
    const transcript = page.locator('[data-testid="transcript"]');
    await transcript.waitFor();
    const hidden = transcript.locator('.message.msg-hidden');
    expect(await hidden.count()).toBe(1);
    expect(await hidden.innerText()).toContain('hidden copy');
    expect(await hidden.innerText()).toContain('side-chat source context');
    expect(await transcript.locator('.message.msg-visible').count()).toBe(1);
    await screenshot(page, '05-side-chat-hidden-copy');

    const chat = (await api(served, 'sessions.create', { projectId: 'web', title: 'Long chat' })).id;
    for (let i = 0; i < 3; i++) {
      await api(served, 'messages.add', { sessionId: chat, role: 'user', content: `Question ${i}` });
      await api(served, 'messages.add', { sessionId: chat, role: 'assistant', content: `Answer ${i}` });
    }
    const compacted = await api(served, 'turns.compact', { sessionId: chat, keepLastTurns: 1 });
    expect(compacted.compactedMessages).toBe(4);
    await page.goto(`${served.url}/#/sessions/${chat}`);
    const chatTranscript = page.locator('[data-testid="transcript"]');
    await chatTranscript.waitFor();
    expect(await chatTranscript.locator('.message.msg-summary').innerText()).toContain('compaction summary');
    expect(await chatTranscript.locator('.message', { hasText: 'compacted (audit only)' }).count()).toBe(4);
    expect(await chatTranscript.locator('.message.msg-visible').count()).toBe(2);
    await screenshot(page, '05b-compaction-summary');
  });

  it('forgets a session after a dry-run preview, and shared facts survive', async () => {
    await page.goto(`${served.url}/#/sessions/${ids.kickoff}`);
    await page.getByRole('button', { name: 'Forget session…' }).click();
    const preview = page.locator('[data-testid="forget-preview"]');
    await preview.waitFor();
    expect(await preview.locator('[data-testid="preview-deleted"]').innerText()).toContain(
      'Billing invoices are generated nightly',
    );
    const kept = await preview.locator('[data-testid="preview-kept"]').innerText();
    expect(kept).toContain('Billing uses Postgres 16');
    expect(kept).toContain('reinforcement becomes 1');
    // Dream has not written this session into the wiki yet: nothing to change there, nothing left over.
    expect(await preview.locator('[data-testid="forget-wiki"]').innerText()).toContain(
      'Wiki pages that will change (0)',
    );
    await screenshot(page, '06-forget-preview');
    // Escape cancels without forgetting anything.
    await page.keyboard.press('Escape');
    expect(await preview.count()).toBe(0);
    expect((await api(served, 'sessions.get', { sessionId: ids.kickoff })).id).toBe(ids.kickoff);

    await page.getByRole('button', { name: 'Forget session…' }).click();
    await page.locator('[data-testid="confirm-forget"]').click();
    await poll(() => page.url()).toMatch(/#\/sessions$/);
    await poll(() => page.locator(`[data-testid="sessions-list"] [data-session-id="${ids.kickoff}"]`).count()).toBe(0);
    expect(await page.locator(`[data-testid="sessions-list"] [data-session-id="${ids.followUp}"]`).count()).toBe(1);

    await page.goto(`${served.url}/#/facts?scope=project&key=billing`);
    await poll(() => factTexts(page)).toEqual(['Billing uses Postgres 16']);
    await page.locator('.fact-row').first().click();
    const detail = page.locator('[data-testid="fact-detail"]');
    await poll(() => detail.locator('.props').innerText()).toContain('1 supporting session');
    expect(await detail.locator('.evidence-link').count()).toBe(1);
    expect(await detail.locator(`.evidence-link[data-session-id="${ids.followUp}"]`).count()).toBe(1);
    await screenshot(page, '07-after-forget');
  });

  it('retries a failed extraction', async () => {
    const failed = await api(served, 'extraction.run', { sessionId: ids.extractTarget });
    expect(failed.outcome).toBe('failed');
    await page.goto(`${served.url}/#/extraction`);
    const row = page.locator(`[data-testid="extraction-table"] tr[data-session-id="${ids.extractTarget}"]`);
    await poll(() => row.getAttribute('data-status')).toBe('failed');
    expect(await row.innerText()).toMatch(/503|loading/i);
    await screenshot(page, '08-extraction-failed');
    model.setHealthy(true);
    await row.getByRole('button', { name: 'Retry' }).click();
    await poll(() => page.locator('[data-testid="extraction-result"]').innerText()).toContain(
      'Payments retries: Stored 1 fact (1 new',
    );
    await poll(() => row.getAttribute('data-status')).not.toBe('failed');
    await screenshot(page, '09-extraction-retried');
    await page.goto(`${served.url}/#/facts?q=retried`);
    await poll(() => factTexts(page)).toEqual(['Failed payments are retried three times']);
  });

  it('shows the wiki tree and renders pages without HTML or unsafe links', async () => {
    await api(served, 'wiki.write', {
      path: 'topics/hostile.md',
      content: [
        '---',
        'description: A page with hostile content',
        'tags: [test]',
        'confidence: low',
        '---',
        '# Hostile',
        '',
        '<script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2">',
        '',
        '[click me](javascript:window.__pwned=3) · [data](data:text/html,hi) · [outside](https://example.com/) · [[INDEX]] · [[no-such-page]]',
        '',
      ].join('\n'),
    });
    await page.goto(`${served.url}/#/wiki?path=topics%2Fhostile.md`);
    const body = page.locator('[data-testid="wiki-body"]');
    await body.waitFor();
    await poll(() => page.locator('[data-testid="wiki-tree"] [data-path="topics/hostile.md"]').count()).toBe(1);
    expect(await page.locator('[data-testid="front-matter"]').innerText()).toContain('A page with hostile content');
    expect(await body.locator('script, img').count()).toBe(0);
    expect(await body.innerText()).toContain('<script>');
    const hrefs = await body.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs.some((h) => /^(javascript|data):/i.test(h))).toBe(false);
    expect(hrefs).toContain('https://example.com/');
    expect(hrefs).toContain('#/wiki?path=INDEX.md');
    expect(await body.locator('a.broken-link').count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, '10-wiki-page');
    await body.locator('a[href="#/wiki?path=INDEX.md"]').click();
    await poll(() => page.locator('[data-testid="wiki-page"]').getAttribute('data-path')).toBe('INDEX.md');
  });

  it('runs Dream now, with progress, and INDEX.md changes', async () => {
    await page.goto(`${served.url}/#/wiki?path=INDEX.md`);
    await page.locator('[data-testid="wiki-body"]').waitFor();
    const before = await page.locator('[data-testid="wiki-body"]').innerText();
    expect(before).not.toContain('Payments retries');

    await page.goto(`${served.url}/#/dream`);
    await poll(() => page.locator('[data-testid="dream-pending"]').innerText()).toMatch(/[1-9]\d* sessions?/);
    await poll(() => page.locator('[data-testid="settings-problems"]').innerText()).toMatch(/log\.level/);
    await screenshot(page, '11-dream-before');
    await page.locator('[data-testid="dream-run"]').click();
    await poll(() => page.locator('[data-testid="dream-result"]').innerText()).toMatch(/processed/);
    expect(await page.locator('[data-testid="dream-result"]').innerText()).toMatch(/0 remaining/);
    await poll(() => page.locator('[data-testid="dream-pending"]').innerText()).toBe('0 sessions · 0 notes');
    await poll(() => page.locator('[data-testid="dream-runs"] tbody tr').count()).toBeGreaterThan(0);
    await screenshot(page, '12-dream-after');

    await page.getByRole('link', { name: 'Open INDEX.md' }).click();
    await poll(() => page.locator('[data-testid="wiki-body"]').innerText()).not.toBe(before);
    const after = await page.locator('[data-testid="wiki-body"]').innerText();
    expect(after).toContain('Payments retries');
    await screenshot(page, '13-index-after-dream');

    await page.goto(`${served.url}/#/dream`);
    await page.getByRole('button', { name: 'Run lint' }).click();
    await poll(() => page.locator('[data-testid="lint-result"]').innerText()).toMatch(/finding/);
    await page.getByRole('link', { name: 'Open LINT.md' }).click();
    await poll(() => page.locator('[data-testid="wiki-page"]').getAttribute('data-path')).toBe('LINT.md');
    await screenshot(page, '14-lint');
  });

  it('forgets a single fact after confirmation, with its wiki copies, and lists what a person wrote', async () => {
    const vite = (await api(served, 'facts.list', { scope: 'project', scopeKey: 'web' })).facts[0]!;
    // Dream ran (above): the fact has a bullet on a Dream page. A person also wrote about it.
    await api(served, 'wiki.write', {
      path: 'entities/vite-notes.md',
      content: `---\ndescription: Vite notes\nupdated: 2026-01-01\n---\n# Vite notes\n\nWe chose Vite, see fact:${vite.id}.\n`,
    });
    await page.goto(`${served.url}/#/facts?scope=project&key=web`);
    await poll(() => factTexts(page)).toEqual(['The web app is built with Vite']);
    await page.locator('.fact-row').first().click();
    await page.getByRole('button', { name: 'Forget fact…' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.innerText()).toContain('1 evidence row');
    await dialog.locator('[data-testid="forget-wiki-pages"]').waitFor();
    expect(await dialog.locator('[data-testid="forget-wiki-pages"] li').count()).toBeGreaterThan(0);
    expect(await dialog.locator('[data-testid="forget-wiki-mentions"]').innerText()).toContain(
      'entities/vite-notes.md:7',
    );
    await screenshot(page, '15-forget-fact-preview');
    // Focus starts on Cancel, so Enter right away does not forget anything.
    await page.keyboard.press('Enter');
    expect(await dialog.count()).toBe(0);
    expect((await api(served, 'facts.list', { scope: 'project', scopeKey: 'web' })).facts).toHaveLength(1);
    await page.getByRole('button', { name: 'Forget fact…' }).click();
    await dialog.getByRole('button', { name: 'Forget fact' }).click();
    await poll(() => page.locator('[data-testid="facts-list"] .fact-row').count()).toBe(0);
    await page.getByText('No facts match').waitFor();
    expect(page.url()).not.toMatch(/#\/facts\/[^?]/);
    expect((await api(served, 'facts.list', { scope: 'project', scopeKey: 'web' })).facts).toHaveLength(0);
    // Lint, in the window, lists the line a person wrote that still names the forgotten fact.
    await page.goto(`${served.url}/#/dream`);
    await page.getByRole('button', { name: 'Run lint' }).click();
    await poll(() => page.locator('[data-testid="forgotten-mentions"]').innerText()).toContain(
      'entities/vite-notes.md:7',
    );
    await screenshot(page, '16-forgotten-mentions');
  });

  it('pages and virtualizes a long fact list', async () => {
    const bulk = (await api(served, 'sessions.create', { projectId: 'bulk', title: 'Bulk' })).id;
    for (let i = 0; i < 700; i++) {
      await api(served, 'facts.add', {
        sessionId: bulk,
        scope: 'project',
        kind: 'fact',
        text: `Bulk fact number ${i}`,
      });
    }
    await page.goto(`${served.url}/#/facts?scope=project&key=bulk`);
    const list = page.locator('[data-testid="facts-list"]');
    await list.locator('.fact-row').first().waitFor();
    // The real total, not "200+ loaded".
    await poll(() => page.locator('.list-footer').innerText()).toContain('200 of 700 facts');
    // Only the rows on screen (plus overscan) exist in the DOM, however many are loaded.
    // Each scroll to the bottom loads the next page; on a busy machine a page can take longer than
    // one pause, so keep scrolling (a bounded number of times) until the last one is in.
    for (let i = 0; i < 40 && !/^700 facts/.test(await page.locator('.list-footer').innerText()); i++) {
      await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(150);
    }
    await poll(() => page.locator('.list-footer').innerText()).toMatch(/^700 facts/);
    expect(await list.locator('.fact-row').count()).toBeLessThan(60);
    expect(await list.locator('.fact-row').last().innerText()).toMatch(/Bulk fact number \d+/);
    // Keyboard: End moves focus to the last fact, Enter opens it.
    await list.locator('[tabindex="0"]').focus();
    await page.keyboard.press('End');
    await poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toMatch(/Bulk fact number/);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-testid="fact-detail"] h2').innerText()).toMatch(/^Bulk fact number \d+$/);
    await screenshot(page, '15-long-list');
  });

  it('a tab without the token explains how to get in and reads nothing', async () => {
    const other = await browser.context.newPage();
    const failures: number[] = [];
    other.on('response', (r) => r.url().includes('/api/') && failures.push(r.status()));
    await other.goto(`${served.url}/#/facts`);
    await other.getByText('needs its access token').waitFor();
    // The window asks before calling anything: the server never saw an unauthenticated request.
    expect(failures).toEqual([]);
    await screenshot(other, '16-no-token');
    await other.fill('input[type="password"]', 'not a token!');
    await other.getByRole('button', { name: 'Continue' }).click();
    await other.getByText('does not look like a token').waitFor();
    await other.fill('input[type="password"]', served.browserUrl.split('#token=')[1]!);
    await other.getByRole('button', { name: 'Continue' }).click();
    await other.locator('[data-testid="facts-list"] .fact-row').first().waitFor();
    expect(failures.every((s) => s === 200)).toBe(true);
    await other.close();
  });

  it('logged no page errors (CSP violations included)', () => {
    expect(pageErrors).toEqual([]);
  });
});
