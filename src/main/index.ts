import { app, BrowserWindow, dialog, ipcMain, nativeTheme, session, shell } from 'electron';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openEngine, type Engine } from './engine';
import { resolveHome } from './home';
import { setDefaultNativeBinding } from './store/db';
import { setProcessKind } from './log';
import { handleIpcCall, isOwnPage } from './api/ipc';
import { startLongLivedServices } from './api/long-lived';
import { RENDERER_CSP_HEADER } from './api/csp';
import { IPC_CHANGED_CHANNEL, IPC_CHANNEL, IPC_PICK_IMPORT_FILE } from '../preload/api';
import { changeFeedFor } from './api/change-feed';
import { startDesktopHttpServer } from './api/desktop-http';
import type { HttpServer } from './api/http';

/**
 * The Electron shell: one locked-down window over the engine. The renderer gets no Node, runs
 * sandboxed behind contextIsolation and a strict CSP, cannot navigate or open windows, and
 * reaches the engine only through the preload's single IPC channel.
 */

// electron-vite dev sets this to the Vite server; a built app loads the bundled page.
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const rendererFile = path.join(__dirname, '../renderer/index.html');
const pageUrl = devServerUrl ?? pathToFileURL(rendererFile).href;

/** better-sqlite3 built for Electron's ABI by scripts/electron-native.js (Node's build would not load). */
function electronNativeBinding(): string | undefined {
  const file = path.join(
    app.getAppPath(),
    '.cache',
    'electron-native',
    `electron-${process.versions.electron}`,
    'better-sqlite3',
    'build',
    'Release',
    'better_sqlite3.node',
  );
  return existsSync(file) ? file : undefined;
}

function homeFromArgs(argv: string[]): string | undefined {
  const i = argv.indexOf('--home');
  if (i !== -1) return argv[i + 1];
  return argv.find((a) => a.startsWith('--home='))?.slice('--home='.length);
}

function lockDownSessions(): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        // Vite's dev server needs inline preamble scripts and a websocket; the built app gets the strict policy.
        'Content-Security-Policy': [
          devServerUrl
            ? "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self' ws:; img-src 'self' data:"
            : RENDERER_CSP_HEADER,
        ],
      },
    });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
}

app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(({ url }) => {
    // Links in transcripts or wiki pages open in the user's browser, never inside the app.
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (url !== contents.getURL()) event.preventDefault();
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'EvoFlux Memory',
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#16181b' : '#f7f7f5',
    webPreferences: {
      preload: path.join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  // Views refresh when the CLI, an agent or this app writes: tell the window, not the world.
  if (engine) {
    const off = changeFeedFor(engine).subscribe((notice) => {
      if (!win.isDestroyed()) win.webContents.send(IPC_CHANGED_CHANNEL, notice);
    });
    win.on('closed', off);
  }
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererFile);
  return win;
}

/**
 * Import history: reading an arbitrary file is the owner's act, so the window does not type a
 * path; main shows the native dialog and answers the path the person chose (or null).
 */
async function pickImportFile(event: Electron.IpcMainInvokeEvent): Promise<string | null> {
  if (closing || !isOwnPage(event.senderFrame?.url, pageUrl)) return null;
  const options: Electron.OpenDialogOptions = {
    title: 'Import history',
    buttonLabel: 'Import',
    properties: ['openFile'],
    filters: [
      { name: 'ChatGPT or Claude export, JSONL transcript', extensions: ['json', 'jsonl', 'ndjson'] },
      { name: 'All files', extensions: ['*'] },
    ],
  };
  const win = BrowserWindow.fromWebContents(event.sender);
  const picked = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return picked.canceled ? null : (picked.filePaths[0] ?? null);
}

let engine: Engine | null = null;
let stopServices: (() => Promise<void>) | null = null;
let httpDoor: Promise<HttpServer | null> | null = null;
let closing = false;

async function start(): Promise<void> {
  setProcessKind('desktop');
  setDefaultNativeBinding(electronNativeBinding());
  const home = resolveHome(homeFromArgs(process.argv));
  try {
    engine = openEngine({ home });
  } catch (e) {
    dialog.showErrorBox(
      'EvoFlux Memory could not open its data',
      `${(e as Error).message}\n\nHome: ${home}\nIf this mentions NODE_MODULE_VERSION, run \`npm start\` (it rebuilds better-sqlite3 for Electron).`,
    );
    app.exit(1);
    return;
  }
  const opened = engine;
  ipcMain.handle(IPC_CHANNEL, (event, name: unknown, input: unknown) =>
    closing
      ? { ok: false, error: { code: 'unavailable', message: 'EvoFlux Memory is shutting down' } }
      : handleIpcCall(opened, event.senderFrame?.url, pageUrl, name, input),
  );
  ipcMain.handle(IPC_PICK_IMPORT_FILE, pickImportFile);
  stopServices = startLongLivedServices(opened);
  // Agents and scripts reach the running app over loopback (MCP at /mcp); see http-server.json.
  httpDoor = startDesktopHttpServer(opened);
  lockDownSessions();
  createWindow();
}

// Sandbox every renderer, including any the app never meant to create.
app.enableSandbox();
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const [win] = BrowserWindow.getAllWindows();
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  void app.whenReady().then(start);
  app.on('activate', () => {
    if (engine && BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', (event) => {
    if (closing || !engine) return;
    // Drain extraction and Dream and close SQLite before the process goes.
    event.preventDefault();
    closing = true;
    const closingEngine = engine;
    void (async () => {
      // Requests and MCP calls in flight finish before Dream stops and the engine drains.
      await (await httpDoor)?.close();
      await stopServices?.();
      await closingEngine.close();
      app.quit();
    })();
  });
}
