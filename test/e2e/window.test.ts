import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { tempHome } from '../helpers/home';
import {
  cli,
  ensureRendererBuilt,
  openBrowser,
  screenshot,
  seriousA11yViolations,
  startServe,
  type BrowserHandle,
  type Served,
} from './support';

/**
 * The window people use every day, in Chromium against `serve`: correcting and adding facts,
 * pinning and pausing, one search over everything, the wiki as a reader and an editor, the
 * overview's charts, settings, live updates when the CLI writes, keyboard-only work, three
 * window widths, the dark theme, and axe-core on every view.
 */

/** A stand-in OpenAI-compatible endpoint: lists two models, and its chat completions fail (503). */
function fakeEndpoint(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return void res.end(JSON.stringify({ data: [{ id: 'stub' }, { id: 'other' }] }));
      }
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model is loading' } }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })),
  );
}

const SETTINGS_COMMENT = '# EvoFlux settings, kept by hand';

async function call(served: Served, name: string, input: unknown): Promise<any> {
  const token = served.browserUrl.split('#token=')[1];
  const r = await fetch(`${served.url}/api/commands/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = await r.json();
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body;
}

const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 100 });
const factTexts = (page: Page) => page.locator('[data-testid="facts-list"] .fact-row .row-text').allInnerTexts();

interface Ids {
  database: string;
  followUp: string;
  web: string;
  infra: string;
  questionSeq: number;
}

async function seed(served: Served, home: string): Promise<Ids> {
  // A session and a note through the CLI, the rest through the HTTP door (faster).
  const database = cli(home, ['sessions', 'add', '--project', 'billing', '--title', 'Database choice']).id;
  const question = await call(served, 'messages.add', {
    sessionId: database,
    role: 'user',
    content: 'Which database should billing use for invoices?',
  });
  const answer = await call(served, 'messages.add', {
    sessionId: database,
    role: 'assistant',
    content: 'Billing uses Postgres 16; backups run nightly with pgBackRest.',
  });
  const followUp = (await call(served, 'sessions.create', { projectId: 'billing', title: 'Billing follow-up' })).id;
  const confirm = await call(served, 'messages.add', {
    sessionId: followUp,
    role: 'user',
    content: 'Confirmed: Postgres 16 it is. Invoices are emailed as PDF. I prefer concise answers.',
  });
  const web = (await call(served, 'sessions.create', { projectId: 'web', title: 'Web app setup' })).id;
  const webMsg = await call(served, 'messages.add', {
    sessionId: web,
    role: 'user',
    content: 'We build the web app with Vite.',
  });
  const infra = (await call(served, 'sessions.create', { projectId: 'infra', title: 'Infrastructure' })).id;
  const infraMsg = await call(served, 'messages.add', {
    sessionId: infra,
    role: 'user',
    content: 'Deploys go through Terraform.',
  });
  await call(served, 'messages.add', { sessionId: infra, role: 'assistant', content: 'Noted.' });
  const fact = (sessionId: string, messageId: string, scope: string, kind: string, text: string) =>
    call(served, 'facts.add', { sessionId, messageId, scope, kind, text });
  await fact(database, answer.id, 'project', 'decision', 'Billing uses Postgres 16');
  await fact(followUp, confirm.id, 'project', 'decision', 'Billing uses Postgres 16');
  await fact(database, answer.id, 'project', 'fact', 'Postgres backups run nightly with pgBackRest');
  await fact(followUp, confirm.id, 'project', 'convention', 'Invoices are emailed as PDF');
  await fact(followUp, confirm.id, 'user', 'preference', 'Prefers concise answers');
  await fact(database, question.id, 'session', 'fact', 'Draft the invoice table migration next');
  await fact(web, webMsg.id, 'project', 'convention', 'The web app is built with Vite');
  await fact(infra, infraMsg.id, 'project', 'constraint', 'Deploys go through Terraform');
  cli(home, ['wiki', 'note', 'Billing: Postgres upgrade window is Sunday night.']);
  return { database, followUp, web, infra, questionSeq: question.seq };
}

describe('the everyday window (Chromium against serve)', () => {
  const home = tempHome('evoflux-e2e-window-');
  let served: Served;
  let browser: BrowserHandle;
  let page: Page;
  let ids: Ids;
  let endpoint: Awaited<ReturnType<typeof fakeEndpoint>>;
  const pageErrors: string[] = [];
  /** Refusals a test provokes on purpose (status + command), each allowed once. */
  const provoked: { status: number; command: string }[] = [];
  const provoke = (status: number, command: string) => provoked.push({ status, command });
  const expectedConsole: string[] = [];
  const a11y: Record<string, string[]> = {};

  /** axe-core on what is on screen now; serious and critical findings are collected per view. */
  const checkA11y = async (name: string) => {
    const found = await seriousA11yViolations(page);
    if (found.length) a11y[name] = found.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.join(' | ')}`);
  };
  const open = async (hash: string, ready: string) => {
    await page.goto(`${served.url}/${hash}`);
    await page.locator(ready).first().waitFor();
  };

  beforeAll(async () => {
    ensureRendererBuilt();
    endpoint = await fakeEndpoint();
    writeFileSync(
      path.join(home.dir, 'settings.yaml'),
      [
        SETTINGS_COMMENT,
        'extraction:',
        '  retrySweepMs: 0 # the test decides when retries happen',
        'llm:',
        `  baseUrl: "http://127.0.0.1:${endpoint.port}/v1"`,
        '  model: stub',
        '  timeoutMs: 5000',
        '  maxRetries: 0',
        'dream: { enabled: false }',
        '',
      ].join('\n'),
    );
    served = await startServe(home.dir);
    ids = await seed(served, home.dir);
    // One failed extraction (the endpoint answers 503) and one Dream run, so every chart has data.
    expect((await call(served, 'extraction.run', { sessionId: ids.infra })).outcome).toBe('failed');
    await call(served, 'dream.run', { drain: true });
    browser = await openBrowser();
    page = browser.page;
    // CSP violations are recorded by the page itself (an init script is not subject to the CSP).
    await browser.context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const i = expectedConsole.findIndex((e) => m.text().includes(e));
      if (i >= 0) expectedConsole.splice(i, 1);
      else pageErrors.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() < 400) return;
      const i = provoked.findIndex((p) => p.status === r.status() && r.url().endsWith(`/api/commands/${p.command}`));
      if (i >= 0) {
        provoked.splice(i, 1);
        // The browser logs every failed request once more: that line is expected too.
        expectedConsole.push(`status of ${r.status()}`);
      } else pageErrors.push(`HTTP ${r.status()} ${r.url()}`);
    });
    await page.goto(served.browserUrl);
    await page.locator('[data-testid="facts-list"] .fact-row').first().waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    expect(await served?.stop()).toBe(0);
    endpoint?.server.close();
    home.cleanup();
  });

  it('draws the overview as charts with real data', async () => {
    await open('#/overview', '[data-testid="overview-totals"]');
    expect(await page.locator('[data-testid="overview-totals"]').innerText()).toMatch(/Facts\s*7\s/);
    for (const chart of ['scope', 'kind', 'growth', 'total', 'extraction', 'dream', 'storage']) {
      const figure = page.locator(`[data-testid="chart-${chart}"]`);
      await figure.locator('svg.recharts-surface').first().waitFor();
      // Bars or a line were drawn, not an empty frame.
      await poll(() => figure.locator('.recharts-bar-rectangle, .recharts-line-curve').count()).toBeGreaterThan(0);
    }
    // The same figures as a table, for screen readers and exact numbers.
    await page.locator('[data-testid="chart-scope"] summary').click();
    const scopeTable = await page.locator('[data-testid="chart-scope"] table').innerText();
    expect(scopeTable).toMatch(/project\s+5\s+3/);
    await screenshot(page, 'w01-overview');
    await checkA11y('overview');
  });

  it('edits a fact, finds it by its new words, keeps its history and re-indexes it for recall', async () => {
    await open('#/facts?scope=project&key=billing', '[data-testid="facts-list"] .fact-row');
    await page.locator('.fact-row', { hasText: 'Postgres backups run nightly' }).click();
    const detail = page.locator('[data-testid="fact-detail"]');
    await detail.getByRole('button', { name: 'Edit…' }).click();
    const editor = page.getByRole('form', { name: 'Edit fact' });
    await editor.getByLabel('Text').fill('Postgres backups run hourly with WAL archiving');
    await editor.getByLabel('Confidence').selectOption('high');
    await screenshot(page, 'w02-fact-editing');
    await checkA11y('fact-editor');
    await editor.getByRole('button', { name: 'Save' }).click();
    await poll(() => detail.locator('h2').innerText()).toBe('Postgres backups run hourly with WAL archiving');
    await poll(() => page.locator('[data-testid="announcer"]').innerText()).toContain('earlier wording is kept');
    const history = page.locator('[data-testid="fact-history"]');
    await poll(() => history.innerText()).toContain('before: “Postgres backups run nightly with pgBackRest”');
    expect(await history.innerText()).toContain('edited by window');
    // Found by the new words, not the old ones.
    await page.fill('#fact-search', 'archiving');
    await poll(() => factTexts(page)).toEqual(['Postgres backups run hourly with WAL archiving']);
    await page.fill('#fact-search', 'pgBackRest');
    await page.getByText('No facts match').waitFor();
    // Recall reads the re-indexed text.
    const recalled = await call(served, 'memory.recall', {
      sessionId: ids.followUp,
      text: 'how often do the WAL archiving backups run',
    });
    expect(recalled.facts.map((f: { text: string }) => f.text)).toContain(
      'Postgres backups run hourly with WAL archiving',
    );
    await screenshot(page, 'w03-fact-edited');
  });

  it('finds facts by any of their words, inflections and prefixes, best matches first', async () => {
    await open('#/facts?q=postgres%20invoices', '[data-testid="facts-list"] .fact-row');
    // Both words are as rare here (two facts each), so BM25's length normalization decides: the
    // shortest fact holding one of them ranks first.
    await poll(async () => (await factTexts(page))[0]).toBe('Billing uses Postgres 16');
    // Any word, inflections too ("invoices" finds "invoice"), the facts holding both first.
    await poll(() => factTexts(page)).toEqual(
      expect.arrayContaining(['Billing uses Postgres 16', 'Invoices are emailed as PDF']),
    );
    expect(await factTexts(page)).toContain('Draft the invoice table migration next');
    expect(await page.locator('[data-testid="facts-total"]').innerText()).toMatch(/^4 facts/);
    // Prefix: typing narrows as you go.
    await page.fill('#fact-search', 'terra');
    await poll(() => factTexts(page)).toEqual(['Deploys go through Terraform']);
  });

  it('refuses an edit that duplicates another fact, then merges the two on request', async () => {
    const added = await call(served, 'facts.create', {
      scope: 'project',
      scopeKey: 'billing',
      kind: 'decision',
      text: 'Billing runs on Postgres 16',
      actor: 'test',
    });
    await open(`#/facts/${added.fact.id}`, '[data-testid="fact-detail"]');
    const detail = page.locator('[data-testid="fact-detail"]');
    await detail.getByRole('button', { name: 'Edit…' }).click();
    const editor = page.getByRole('form', { name: 'Edit fact' });
    await editor.getByLabel('Text').fill('billing uses postgres 16.');
    provoke(409, 'facts.update');
    await editor.getByRole('button', { name: 'Save' }).click();
    const alert = editor.getByRole('alert');
    await poll(() => alert.innerText()).toContain('Another fact in the same scope already says this');
    await screenshot(page, 'w04-edit-conflict');
    await alert.getByRole('button', { name: 'Merge them' }).click();
    await poll(() => page.locator('[data-testid="announcer"]').innerText()).toContain('Merged');
    await poll(() => detail.locator('h2').innerText()).toBe('Billing uses Postgres 16');
    const billing = (await call(served, 'facts.list', { scope: 'project', scopeKey: 'billing', limit: 100 })).facts;
    expect(billing.map((f: { text: string }) => f.text)).not.toContain('Billing runs on Postgres 16');
    expect(billing.find((f: { text: string }) => f.text === 'Billing uses Postgres 16').reinforcement).toBe(2);
  });

  it('adds a fact by hand in a chosen context', async () => {
    await open('#/facts', '[data-testid="facts-list"] .fact-row');
    await page.getByRole('button', { name: 'Add fact…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a fact' });
    await dialog.getByLabel('What to remember').fill('Staging runs in eu-west-1');
    await dialog.getByLabel('Kind').selectOption('constraint');
    await dialog.locator('[data-testid="add-fact-scope"]').selectOption('project');
    await poll(() => dialog.locator('[data-testid="context-project"] option').allInnerTexts()).toContain(
      'infra (1 fact, 1 session)',
    );
    await dialog.locator('[data-testid="context-project"]').selectOption('infra');
    await screenshot(page, 'w05-add-fact');
    await checkA11y('add-fact');
    await dialog.locator('[data-testid="add-fact-submit"]').click();
    const detail = page.locator('[data-testid="fact-detail"]');
    await poll(() => detail.locator('h2').innerText()).toBe('Staging runs in eu-west-1');
    expect(await detail.locator('.props').innerText()).toMatch(/project\s+infra/);
    expect(await detail.locator('[data-testid="fact-history"]').innerText()).toContain('added by window');
  });

  it('pins and pauses a fact, and recall follows', async () => {
    const vite = (await call(served, 'facts.list', { text: 'vite' })).facts[0];
    await open(`#/facts/${vite.id}`, '[data-testid="fact-detail"]');
    const detail = page.locator('[data-testid="fact-detail"]');
    const recallText = () =>
      call(served, 'memory.recall', { sessionId: ids.web, text: 'which bundler builds the web app vite' });
    expect((await recallText()).facts.map((f: { id: string }) => f.id)).toContain(vite.id);
    await detail.getByRole('button', { name: 'Pause' }).click();
    await poll(() => detail.locator('[data-testid="fact-recall"]').innerText()).toContain('paused');
    await poll(() => page.locator('.fact-row .recall-paused').count()).toBe(1);
    expect((await recallText()).facts.map((f: { id: string }) => f.id)).not.toContain(vite.id);
    await screenshot(page, 'w06-fact-paused');
    await detail.getByRole('button', { name: 'Pin' }).click();
    await poll(() => detail.locator('[data-testid="fact-recall"]').innerText()).toContain('pinned');
    expect((await recallText()).facts.map((f: { id: string }) => f.id)).toContain(vite.id);
    await page.locator('.filters select').nth(2).selectOption('pinned');
    await poll(() => factTexts(page)).toEqual(['The web app is built with Vite']);
    expect(await page.locator('[data-testid="fact-history"]').innerText()).toMatch(
      /pinned by window[\s\S]*paused by window/,
    );
  });

  it('switches recall off and on, and settings.yaml keeps its comments', async () => {
    await open('#/settings', '[data-testid="switch-recall"]');
    await page.locator('[data-testid="switch-recall"]').uncheck();
    await poll(() => page.locator('[data-testid="announcer"]').innerText()).toContain('Memory recall is off');
    const off = await call(served, 'memory.recall', {
      sessionId: ids.followUp,
      text: 'which database does billing use',
    });
    expect(off).toMatchObject({ facts: [], abstained: true });
    expect(off.reason).toContain('switched off');
    const yaml = readFileSync(path.join(home.dir, 'settings.yaml'), 'utf8');
    expect(yaml).toContain(SETTINGS_COMMENT);
    expect(yaml).toContain('# the test decides when retries happen');
    expect(yaml).toMatch(/recall:\s*\n\s*enabled: false/);
    await screenshot(page, 'w07-settings-recall-off');
    await page.locator('[data-testid="switch-recall"]').check();
    await poll(
      async () =>
        (await call(served, 'memory.recall', { sessionId: ids.followUp, text: 'which database does billing use' }))
          .facts.length,
    ).toBeGreaterThan(0);
  });

  it('explains invalid settings inline, tests the connection, and saves', async () => {
    await open('#/settings', '[data-testid="settings-save"]');
    const form = page.getByRole('form', { name: 'Settings' });
    await form.locator('#setting-llm-baseUrl').fill('ftp://example');
    await form.locator('#setting-extraction-firstAfter').fill('0');
    await poll(() => page.locator('[data-testid="error-llm.baseUrl"]').innerText()).toContain('http:// or https://');
    expect(await page.locator('[data-testid="error-extraction.firstAfter"]').innerText()).toContain('at least 1');
    expect(await page.locator('[data-testid="settings-save"]').isDisabled()).toBe(true);
    await screenshot(page, 'w08-settings-invalid');
    await checkA11y('settings');
    await form.locator('#setting-extraction-firstAfter').fill('4');
    await form.locator('#setting-llm-baseUrl').fill(`http://127.0.0.1:${endpoint.port}/v1`);
    await form.locator('[data-testid="test-connection"]').click();
    await poll(() => page.locator('[data-testid="connection-result"]').innerText()).toContain(
      'model stub is available',
    );
    // A port nobody listens on: the message names the setting to fix.
    const closed = createServer();
    const deadPort = await new Promise<number>((r) =>
      closed.listen(0, '127.0.0.1', () => r((closed.address() as AddressInfo).port)),
    );
    await new Promise((r) => closed.close(r));
    await form.locator('#setting-llm-baseUrl').fill(`http://127.0.0.1:${deadPort}/v1`);
    await form.locator('[data-testid="test-connection"]').click();
    await poll(() => page.locator('[data-testid="connection-result"]').innerText()).toContain('Check llm.baseUrl');
    await form.locator('#setting-llm-baseUrl').fill(`http://127.0.0.1:${endpoint.port}/v1`);
    await form.locator('#setting-dream-schedule').fill('not a cron');
    provoke(400, 'settings.set');
    await form.locator('[data-testid="settings-save"]').click();
    await poll(() => page.locator('[data-testid="error-dream.schedule"]').innerText()).toContain('cron');
    await form.locator('#setting-dream-schedule').fill('30 3 * * *');
    await form.locator('[data-testid="settings-save"]').click();
    await poll(() => page.locator('[data-testid="announcer"]').innerText()).toContain('Settings saved');
    const yaml = readFileSync(path.join(home.dir, 'settings.yaml'), 'utf8');
    expect(yaml).toContain(SETTINGS_COMMENT);
    expect(yaml).toMatch(/firstAfter: 4/);
    expect(yaml).toContain('30 3 * * *');
    expect((await call(served, 'dream.config.get', {})).schedule).toBe('30 3 * * *');
    await screenshot(page, 'w09-settings-saved');
  });

  it('says which setting to fix when extraction fails', async () => {
    await open('#/extraction', '[data-testid="extraction-table"]');
    const row = page.locator(`[data-testid="extraction-table"] tr[data-session-id="${ids.infra}"]`);
    await poll(() => row.getAttribute('data-status')).toBe('failed');
    const hint = row.locator('[data-testid="fix-hint"]');
    expect(await hint.innerText()).toContain('llm.baseUrl');
    await screenshot(page, 'w10-extraction-hint');
    await checkA11y('extraction');
    await hint.getByRole('link').click();
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('setting-llm-baseUrl');
  });

  it('searches everything for a context and opens each kind of hit where it lives', async () => {
    await open(`#/search?session=${ids.followUp}`, '[data-testid="search-input"]');
    await page.fill('[data-testid="search-input"]', 'postgres billing');
    await page.keyboard.press('Enter');
    const results = page.locator('[data-testid="search-results"]');
    await results.waitFor();
    await poll(() => page.locator('[data-testid="hits-fact"] li').count()).toBeGreaterThan(0);
    await poll(() => page.locator('[data-testid="hits-wiki"] li').count()).toBeGreaterThan(0);
    await poll(() => page.locator('[data-testid="hits-dialogue"] li').count()).toBeGreaterThan(0);
    await screenshot(page, 'w11-search');
    await checkA11y('search');
    const searchUrl = page.url();

    await page.locator('[data-testid="hits-fact"] a').first().click();
    await page.locator('[data-testid="fact-detail"]').waitFor();
    expect(page.url()).toMatch(/#\/facts\/[0-9a-f-]+$/);

    await page.goto(searchUrl);
    await page.locator('[data-testid="hits-wiki"] a').first().click();
    await page.locator('[data-testid="wiki-page"]').waitFor();
    expect(page.url()).toContain('#/wiki?path=');

    await page.goto(searchUrl);
    const dialogueHit = page.locator('[data-testid="hits-dialogue"] a').first();
    const target = (await dialogueHit.getAttribute('href'))!;
    await dialogueHit.click();
    const focused = page.locator('.message.focused');
    await focused.waitFor();
    expect(target).toContain(`mid=${await focused.getAttribute('data-message-id')}`);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('message'))).toBe(true);
  });

  it('reads the wiki cleanly: titles, no anchors, message links, an inbox of unprocessed notes', async () => {
    await open('#/wiki', '[data-testid="wiki-tree"]');
    const tree = page.locator('[data-testid="wiki-tree"]');
    // Titles, not hashed file names.
    await poll(() => tree.innerText()).toContain('Session');
    expect(await tree.innerText()).toContain('Database choice');
    // The inbox holds the note Dream has not processed (added after the run).
    cli(home.dir, ['wiki', 'note', 'Infra: staging moves to eu-west-1.']);
    await poll(async () => await tree.locator('[role="treeitem"]', { hasText: 'Inbox' }).innerText()).toMatch(
      /Inbox \(unprocessed notes\)\s*1/i,
    );
    const source = tree.locator('[data-path^="sources/session-"]', { hasText: 'Database choice' });
    await source.click();
    const body = page.locator('[data-testid="wiki-body"]');
    await body.waitFor();
    expect(await body.innerText()).not.toContain('<!--');
    expect(await body.innerText()).not.toContain('fact:');
    await screenshot(page, 'w12-wiki-source-page');
    await checkA11y('wiki');
    const link = body.locator('a.message-link').first();
    expect(await link.getAttribute('href')).toContain(`#/sessions/${ids.database}?msg=`);
    await link.click();
    await page.locator('.message.focused').waitFor();
  });

  it('moves through the wiki tree with the keyboard as one Tab stop', async () => {
    await open('#/wiki?path=INDEX.md', '[data-testid="wiki-tree"] [tabindex="0"]');
    await page.locator('[data-testid="wiki-tree"] [tabindex="0"]').focus();
    expect(await page.locator('[data-testid="wiki-tree"] [tabindex="0"]').count()).toBe(1);
    await page.keyboard.press('Home');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('System');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-testid="wiki-page"]').getAttribute('data-path')).not.toBe('INDEX.md');
    await page.keyboard.press('Tab');
    // One Tab leaves the tree.
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="wiki-tree"]'))).toBeNull();
  });

  it('shows USER.md as a profile and edits it, refusing to overwrite a change made on disk meanwhile', async () => {
    await open('#/wiki?path=USER.md', '[data-testid="user-profile"]');
    const profile = page.locator('[data-testid="user-profile"]');
    // The YAML comments are the explanation, not headings; the keys are the profile's sections.
    expect(await profile.locator('h3').allInnerTexts()).toEqual([
      'Identity',
      'Preferences',
      'Working style',
      'Projects',
    ]);
    expect(await profile.innerText()).toContain('Durable user profile');
    await screenshot(page, 'w13-user-profile');
    await page.locator('[data-testid="wiki-edit"]').click();
    const text = page.locator('[data-testid="wiki-editor-text"]');
    const content = await text.inputValue();
    await text.fill(content.replace('preferences: []', 'preferences:\n  - concise answers\n  - metric units'));
    await poll(() => page.locator('.editor-preview').innerText()).toContain('metric units');
    await screenshot(page, 'w14-user-profile-editing');
    await checkA11y('wiki-editor');
    // Someone else writes USER.md meanwhile (the CLI).
    const other = path.join(home.dir, 'user-from-cli.md');
    writeFileSync(other, content.replace('identity: {}', 'identity:\n  name: Ada'));
    cli(home.dir, ['wiki', 'write', '--path', 'USER.md', '--file', other]);
    provoke(409, 'wiki.write');
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => page.locator('[data-testid="wiki-save-error"]').innerText()).toContain('changed on disk');
    expect(await text.inputValue()).toContain('metric units');
    await page.getByRole('button', { name: 'Discard mine and load theirs' }).click();
    await poll(() => text.inputValue()).toContain('name: Ada');
    await text.fill((await text.inputValue()).replace('preferences: []', 'preferences:\n  - metric units'));
    await page.getByRole('button', { name: 'Save' }).click();
    // The editor's live preview shows the profile too: wait for the editor to close after the save.
    await text.waitFor({ state: 'detached' });
    await poll(() => profile.innerText()).toContain('metric units');
    expect(await profile.innerText()).toContain('Ada');
    expect(readFileSync(path.join(home.dir, 'wiki', 'USER.md'), 'utf8')).toContain('- metric units');
  });

  it('updates every view when the CLI writes, without a reload', async () => {
    await open('#/facts?scope=project&key=web', '[data-testid="facts-list"] .fact-row');
    cli(home.dir, [
      'facts',
      'add',
      '--session',
      ids.web,
      '--scope',
      'project',
      '--kind',
      'convention',
      'Components use CSS modules',
    ]);
    await poll(() => factTexts(page)).toContain('Components use CSS modules');
    await open('#/sessions', '[data-testid="sessions-list"]');
    const created = cli(home.dir, ['sessions', 'add', '--project', 'web', '--title', 'Created by the CLI']).id;
    await poll(() => page.locator(`[data-testid="sessions-list"] [data-session-id="${created}"]`).count()).toBe(1);
    await open('#/dream', '[data-testid="dream-pending"]');
    cli(home.dir, ['messages', 'add', '--session', created, '--role', 'user', 'A new request for Dream.']);
    await poll(() => page.locator('[data-testid="dream-pending-list"]').innerText()).toContain('Created by the CLI');
    await screenshot(page, 'w15-dream-pending');
    await checkA11y('dream');
  });

  it('lists the pages the last Dream runs wrote', async () => {
    await open('#/dream', '[data-testid="dream-runs"]');
    const runs = page.locator('[data-testid="dream-runs"]');
    await runs.locator('summary').first().click();
    expect(await runs.locator('a').allInnerTexts()).toEqual(expect.arrayContaining(['INDEX.md', 'LINT.md']));
    expect(await runs.locator('tbody tr').first().innerText()).not.toContain('UTC');
  });

  it('forgets a session with the keyboard alone and announces what went and what stayed', async () => {
    await open('#/sessions', '[data-testid="sessions-list"]');
    await page.locator('[data-testid="sessions-list"] [tabindex="0"]').focus();
    expect(await page.locator('[data-testid="sessions-list"] [tabindex="0"]').count()).toBe(1);
    // Find "Database choice" with the arrow keys, open it with Enter.
    for (let i = 0; i < 12; i++) {
      if ((await page.evaluate(() => document.activeElement?.textContent ?? '')).includes('Database choice')) break;
      await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-testid="session-detail"] h2').innerText()).toBe('Database choice');
    // Tab out of the list (one stop) to the detail's first control: the forget button.
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent ?? '')) === 'Forget session…') break;
    }
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Forget session…');
    await page.keyboard.press('Enter');
    const preview = page.locator('[data-testid="forget-preview"]');
    await preview.waitFor();
    // Supporters are named by title and date, not id fragments.
    // Session names arrive with their own queries, after the preview itself.
    await poll(() => preview.innerText()).toMatch(/still supported by Billing follow-up \(\w+ \d+, \d{4}\)/);
    await screenshot(page, 'w16-forget-preview');
    await checkA11y('forget-dialog');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Forget session');
    await page.keyboard.press('Enter');
    const announcer = page.locator('[data-testid="announcer"]');
    await poll(() => announcer.innerText()).toContain('Forgot “Database choice');
    expect(await announcer.innerText()).toMatch(/deleted, \d+ facts? kept \(still supported by Billing follow-up/);
    expect(await announcer.getAttribute('aria-live')).toBe('polite');
    await poll(() =>
      page.evaluate(() => document.activeElement?.closest('[data-testid="sessions-list"]') !== null),
    ).toBe(true);
    await screenshot(page, 'w17-after-keyboard-forget');
  });

  it('fits 900, 1280 and 1920 px wide windows', async () => {
    const views = [
      ['overview', '#/overview', '[data-testid="overview-totals"]'],
      ['search', `#/search?session=${ids.followUp}&q=postgres`, '[data-testid="search-results"]'],
      ['facts', '#/facts', '[data-testid="facts-list"] .fact-row'],
      ['sessions', `#/sessions/${ids.followUp}`, '[data-testid="transcript"]'],
      ['wiki', '#/wiki?path=INDEX.md', '[data-testid="wiki-body"]'],
      ['extraction', '#/extraction', '[data-testid="extraction-table"]'],
      ['dream', '#/dream', '[data-testid="dream-runs"]'],
      ['settings', '#/settings', '[data-testid="settings-save"]'],
    ] as const;
    for (const width of [900, 1280, 1920]) {
      await page.setViewportSize({ width, height: width === 900 ? 700 : width === 1920 ? 1080 : 800 });
      for (const [name, hash, ready] of views) {
        await open(hash, ready);
        // Nothing sticks out sideways.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await screenshot(page, `w-${width}-${name}`);
      }
      // The transcript keeps a readable measure; the extraction table's buttons are on screen.
      await open(`#/sessions/${ids.followUp}`, '[data-testid="transcript"]');
      const bubble = await page.locator('.message-body').first().boundingBox();
      expect(bubble!.width).toBeGreaterThan(250);
      await open('#/extraction', '[data-testid="extraction-table"]');
      const button = await page.locator('[data-testid="extraction-table"] tbody button').first().boundingBox();
      expect(button!.x + button!.width).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('follows the system dark theme, has a toggle, and passes axe in both themes', async () => {
    const views = [
      ['overview', '#/overview', '[data-testid="overview-totals"]'],
      ['search', `#/search?session=${ids.followUp}&q=postgres`, '[data-testid="search-results"]'],
      ['facts', '#/facts', '[data-testid="facts-list"] .fact-row'],
      [
        'fact',
        `#/facts/${(await call(served, 'facts.list', { text: 'vite' })).facts[0].id}`,
        '[data-testid="fact-detail"]',
      ],
      ['sessions', `#/sessions/${ids.followUp}`, '[data-testid="transcript"]'],
      ['wiki', '#/wiki?path=INDEX.md', '[data-testid="wiki-body"]'],
      ['user', '#/wiki?path=USER.md', '[data-testid="user-profile"]'],
      ['extraction', '#/extraction', '[data-testid="extraction-table"]'],
      ['dream', '#/dream', '[data-testid="dream-runs"]'],
      ['settings', '#/settings', '[data-testid="settings-save"]'],
    ] as const;
    for (const [name, hash, ready] of views) {
      await open(hash, ready);
      await checkA11y(`light-${name}`);
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const [name, hash, ready] of views) {
      await open(hash, ready);
      expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
        'rgb(22, 24, 27)',
      );
      await screenshot(page, `w-dark-${name}`);
      await checkA11y(`dark-${name}`);
    }
    // The toggle overrides the system: light while the system says dark.
    await page.getByLabel('Colour theme').selectOption('light');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
      'rgb(246, 246, 243)',
    );
    await page.getByLabel('Colour theme').selectOption('system');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(a11y).toEqual({});
  });

  it('honours reduced motion', async () => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await open('#/dream', '[data-testid="dream-runs"]');
    const duration = await page.evaluate(() => {
      const probe = document.createElement('div');
      probe.className = 'spinner';
      document.body.append(probe);
      const d = getComputedStyle(probe).animationDuration;
      probe.remove();
      return d;
    });
    expect(parseFloat(duration)).toBeLessThan(0.01);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
  });

  it('the token gate: a wrong token returns to it with a message; the printed address works in an open tab', async () => {
    const tab = await browser.context.newPage();
    // This tab's refusals are the point of the test; its page errors are not collected.
    await tab.goto(`${served.url}/#/facts`);
    await tab.getByText('needs its access token').waitFor();
    await tab.fill('input[type="password"]', 'W'.repeat(43));
    await tab.getByRole('button', { name: 'Continue' }).click();
    await tab.locator('[data-testid="gate-message"]').waitFor();
    expect(await tab.locator('[data-testid="gate-message"]').innerText()).toContain('not accepted');
    await screenshot(tab, 'w18-gate-wrong-token');
    expect(await seriousA11yViolations(tab)).toEqual([]);
    // Opening the printed address in this tab: no reload, and the token leaves the address bar.
    await tab.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    await tab.evaluate((hash) => (window.location.hash = hash), `#token=${served.browserUrl.split('#token=')[1]}`);
    await tab.locator('[data-testid="facts-list"] .fact-row').first().waitFor();
    expect(tab.url()).not.toContain('token=');
    expect(await tab.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    await tab.close();
  });

  it('logged no page errors and no CSP violations', () => {
    expect(pageErrors).toEqual([]);
  });
});
