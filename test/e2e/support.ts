import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { BIN, FOREIGN_CWD, runCli } from '../helpers/cli';
import { ensureBuilt } from '../helpers/build';

export const ROOT = path.resolve(__dirname, '../..');
export const SCREENSHOTS = path.join(__dirname, 'screenshots');
export const CHROMIUM = '/usr/bin/chromium';

/** The browser must load the current bundle (see ensureBuilt). */
export const ensureRendererBuilt = ensureBuilt;

/** Runs one CLI command against the home and returns its JSON output (throws on failure). */
export function cli(home: string, args: string[]): any {
  const r = runCli([...args, '--home', home, '--json']);
  if (r.status !== 0) throw new Error(`evoflux-memory ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout.trim() ? r.json() : null;
}

export interface Served {
  url: string;
  browserUrl: string;
  port: number;
  process: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** The real `serve` command in a child process on a free port. */
export function startServe(home: string): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--home', home, '--json'], {
    cwd: FOREIGN_CWD,
    env: { ...process.env, EVOFLUX_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${err}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (!out.includes('\n') || !line) return;
      clearTimeout(timer);
      const info = JSON.parse(line);
      resolve({
        ...info,
        process: child,
        stderr: () => err,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(child.exitCode);
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export interface BrowserHandle {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile and nothing phoning home. */
export async function openBrowser(): Promise<BrowserHandle> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'evoflux-chromium-'));
  // Playwright owns --user-data-dir through the persistent-context API: a fresh folder per run.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Fail a missing element in seconds, well inside the test timeout, with Playwright's message.
  page.setDefaultTimeout(15_000);
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

const AXE_SOURCE = readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core in the page (evaluated over the DevTools protocol, so the page's CSP, which
 * forbids inline scripts, is left as it is) and returns the serious and critical violations.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<any> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as any[]).map((v) => ({
      id: v.id as string,
      impact: v.impact as string | null,
      help: v.help as string,
      nodes: (v.nodes as any[])
        .slice(0, 5)
        .map((n) => `${(n.target as string[]).join(' ')}: ${n.failureSummary ?? ''}`),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
