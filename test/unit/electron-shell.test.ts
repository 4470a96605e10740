import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempHome } from '../helpers/home';
import { RENDERER_CSP_HEADER } from '../../src/main/api/csp';
import { connectHttpMcp } from '../helpers/mcp-http';

/**
 * The Electron shell's wiring, checked without an Electron binary (none can be installed here):
 * 'electron' is replaced by a recorder, and src/main/index.ts runs against a real engine on a
 * temp home. What Electron itself does with these settings is Electron's job; that the shell
 * asks for the locked-down settings, wires one validated IPC channel and closes the engine is ours.
 */
const rec = vi.hoisted(() => {
  type Handler = (...args: any[]) => any;
  const appHandlers = new Map<string, Handler[]>();
  const state = {
    appHandlers,
    windows: [] as { options: any; loaded: string[]; once: Map<string, Handler> }[],
    ipc: new Map<string, Handler>(),
    headersListener: null as Handler | null,
    permissionHandler: null as Handler | null,
    sandboxEnabled: false,
    quitCalls: 0,
    errors: [] as string[],
    sent: [] as { channel: string; payload: unknown }[],
  };
  const on = (event: string, fn: Handler) => {
    appHandlers.set(event, [...(appHandlers.get(event) ?? []), fn]);
  };
  class BrowserWindow {
    static all: BrowserWindow[] = [];
    static getAllWindows = () => BrowserWindow.all;
    static fromWebContents = () => BrowserWindow.all[0] ?? null;
    record: { options: any; loaded: string[]; once: Map<string, Handler> };
    webContents = { send: (channel: string, payload: unknown) => void state.sent.push({ channel, payload }) };
    on() {}
    isDestroyed() {
      return false;
    }
    constructor(options: any) {
      this.record = { options, loaded: [], once: new Map() };
      state.windows.push(this.record);
      BrowserWindow.all.push(this);
    }
    once(event: string, fn: Handler) {
      this.record.once.set(event, fn);
    }
    loadFile(file: string) {
      this.record.loaded.push(`file:${file}`);
      return Promise.resolve();
    }
    loadURL(url: string) {
      this.record.loaded.push(url);
      return Promise.resolve();
    }
    show() {}
  }
  const electron = {
    app: {
      isPackaged: false,
      enableSandbox: () => void (state.sandboxEnabled = true),
      requestSingleInstanceLock: () => true,
      on,
      whenReady: () => Promise.resolve(),
      getAppPath: () => process.cwd(),
      quit: () => void state.quitCalls++,
      exit: () => {},
    },
    BrowserWindow,
    ipcMain: { handle: (channel: string, fn: Handler) => void state.ipc.set(channel, fn) },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (fn: Handler) => void (state.headersListener = fn) },
        setPermissionRequestHandler: (fn: Handler) => void (state.permissionHandler = fn),
        setPermissionCheckHandler: () => {},
      },
    },
    nativeTheme: { shouldUseDarkColors: false },
    dialog: {
      showErrorBox: (title: string, body: string) => void state.errors.push(`${title}: ${body}`),
      showOpenDialog: vi.fn(async () => ({ canceled: false, filePaths: ['/home/me/Downloads/conversations.json'] })),
    },
    shell: { openExternal: vi.fn(async () => {}) },
  };
  return { state, electron };
});

vi.mock('electron', () => ({ ...rec.electron, default: rec.electron }));

const emit = async (event: string, ...args: unknown[]) => {
  for (const fn of rec.state.appHandlers.get(event) ?? []) await fn(...args);
};

describe('Electron shell (src/main/index.ts)', () => {
  const home = tempHome('evoflux-shell-');
  const pageUrl = pathToFileURL(path.resolve(__dirname, '../../src/renderer/index.html')).href;

  beforeAll(async () => {
    // A free port: the default 7437 may be taken on this machine (another `serve`).
    writeFileSync(path.join(home.dir, 'settings.yaml'), 'http:\n  port: 0\n');
    process.argv.push('--home', home.dir);
    await import('../../src/main/index');
    await vi.waitFor(() => expect(rec.state.windows).toHaveLength(1));
  });
  afterAll(() => home.cleanup());

  it('opens one locked-down window on the data home', () => {
    expect(rec.state.errors).toEqual([]);
    expect(rec.state.sandboxEnabled).toBe(true);
    const { options, loaded } = rec.state.windows[0]!;
    expect(options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(options.webPreferences.preload).toMatch(/preload[\\/]index\.js$/);
    expect(options).toMatchObject({ width: 1280, height: 800 });
    expect(loaded).toEqual([`file:${path.resolve(__dirname, '../../src/renderer/index.html')}`]);
    expect(existsSync(path.join(home.dir, 'memory.db'))).toBe(true);
  });

  it('sends the strict CSP on every response and refuses every permission', () => {
    let headers: any;
    rec.state.headersListener!({ responseHeaders: { 'X-Other': ['1'] } }, (r: any) => (headers = r.responseHeaders));
    expect(headers['Content-Security-Policy']).toEqual([RENDERER_CSP_HEADER]);
    expect(headers['X-Other']).toEqual(['1']);
    let granted: boolean | undefined;
    rec.state.permissionHandler!({}, 'media', (g: boolean) => (granted = g));
    expect(granted).toBe(false);
  });

  it('has one IPC channel that runs contract commands for our page only', async () => {
    expect([...rec.state.ipc.keys()]).toEqual(['evoflux:call', 'evoflux:pick-import-file']);
    const handle = rec.state.ipc.get('evoflux:call')!;
    const ours = { senderFrame: { url: `${pageUrl}#/facts` } };
    const created = await handle(ours, 'sessions.create', { title: 'from the window' });
    expect(created).toMatchObject({ ok: true, value: { title: 'from the window' } });
    const invalid = await handle(ours, 'facts.list', { sort: 'random' });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'sort' } });
    const foreign = await handle({ senderFrame: { url: 'https://evil.example/' } }, 'sessions.create', { title: 'x' });
    expect(foreign).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const detached = await handle({ senderFrame: null }, 'sessions.list', {});
    expect(detached).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('tells the window when the data home changes, whoever wrote', async () => {
    const handle = rec.state.ipc.get('evoflux:call')!;
    const before = rec.state.sent.length;
    await handle({ senderFrame: { url: pageUrl } }, 'sessions.create', { title: 'a write' });
    await vi.waitFor(() => expect(rec.state.sent.length).toBeGreaterThan(before), { timeout: 5_000 });
    expect(rec.state.sent.at(-1)).toMatchObject({ channel: 'evoflux:changed', payload: { sources: ['db'] } });
  });

  it('opens the native file dialog for Import history, for our page only', async () => {
    const pick = rec.state.ipc.get('evoflux:pick-import-file')!;
    const showOpenDialog = rec.electron.dialog.showOpenDialog;
    expect(await pick({ senderFrame: { url: pageUrl }, sender: {} })).toBe('/home/me/Downloads/conversations.json');
    expect(showOpenDialog).toHaveBeenCalledTimes(1);
    const [parent, options] = showOpenDialog.mock.calls[0] as unknown as [unknown, any];
    expect(parent).toBe(rec.electron.BrowserWindow.all[0]);
    expect(options).toMatchObject({ properties: ['openFile'] });
    expect(options.filters[0].extensions).toEqual(['json', 'jsonl', 'ndjson']);
    showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    expect(await pick({ senderFrame: { url: pageUrl }, sender: {} })).toBeNull();
    // Another page gets no dialog at all.
    expect(await pick({ senderFrame: { url: 'https://evil.example/' }, sender: {} })).toBeNull();
    expect(showOpenDialog).toHaveBeenCalledTimes(2);
  });

  it('denies new windows and navigation away from the page', async () => {
    const listeners = new Map<string, (...a: any[]) => void>();
    let openHandler: ((d: { url: string }) => { action: string }) | null = null;
    const contents = {
      setWindowOpenHandler: (fn: typeof openHandler) => void (openHandler = fn),
      on: (event: string, fn: (...a: any[]) => void) => void listeners.set(event, fn),
      getURL: () => pageUrl,
    };
    await emit('web-contents-created', {}, contents);
    expect(openHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(rec.electron.shell.openExternal).toHaveBeenCalledWith('https://example.com/');
    expect(openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(rec.electron.shell.openExternal).toHaveBeenCalledTimes(1);
    const away = { preventDefault: vi.fn() };
    listeners.get('will-navigate')!(away, 'https://evil.example/');
    expect(away.preventDefault).toHaveBeenCalled();
    const webview = { preventDefault: vi.fn() };
    listeners.get('will-attach-webview')!(webview);
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('serves the HTTP door on loopback (JSON API, MCP) and says where in http-server.json', async () => {
    const file = path.join(home.dir, 'http-server.json');
    await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 10_000 });
    const info = JSON.parse(readFileSync(file, 'utf8'));
    expect(info).toMatchObject({ by: 'desktop', pid: process.pid, mcpUrl: `${info.url}/mcp` });
    const token = readFileSync(path.join(home.dir, 'http-token'), 'utf8').trim();
    const health = await fetch(`${info.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
    const mcp = await connectHttpMcp(info.url, token, { project: ['desk'] });
    const s = await mcp.call('memory_create_session', { title: 'from an agent' });
    expect(s.projectId).toBe('desk');
    await mcp.close();
  });

  it('closes the engine before quitting', async () => {
    const quit = { preventDefault: vi.fn() };
    await emit('will-quit', quit);
    expect(quit.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(rec.state.quitCalls).toBe(1));
    // The HTTP door closed first and no longer claims the port.
    expect(existsSync(path.join(home.dir, 'http-server.json'))).toBe(false);
    // The engine is closed: the IPC door now fails instead of touching a closed database.
    const after = await rec.state.ipc.get('evoflux:call')!({ senderFrame: { url: pageUrl } }, 'sessions.list', {});
    expect(after).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });
});
