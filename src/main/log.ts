import { closeSync, openSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The engine's log: `<home>/logs/evoflux.log`, one line per event with the time, the level, the
 * kind of process (desktop, serve, mcp, cli) and its pid, so the app, `serve`, an MCP server and
 * CLI runs sharing a home can be told apart in one file. Written synchronously (a crash loses
 * no line), private to the user (0600) and rotated by size.
 *
 * electron-log's Node entry does the writing and rotation; it is loaded on the first line
 * written, so a short CLI command that has nothing to say never pays for it.
 */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type ProcessKind = 'desktop' | 'serve' | 'mcp' | 'cli' | 'node';

let currentKind: ProcessKind = 'node';

/** Entry points say what they are once; every log line carries it. */
export function setProcessKind(kind: ProcessKind): void {
  currentKind = kind;
}

export const processKind = (): ProcessKind => currentKind;

export interface Log {
  readonly file: string;
  error(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  debug(message: string, ...details: unknown[]): void;
}

export interface LogOptions {
  /** The log file; its folder must exist. */
  file: string;
  /** Lines below this level are dropped (error < warn < info < debug). */
  level?: LogLevel;
  /** A file past this size is rotated before the next line. */
  maxBytes?: number;
  /** Rotated files kept: evoflux.1.log (newest) ... evoflux.N.log. */
  keep?: number;
  /** These levels are also written to stderr (never stdout: it may carry the MCP protocol). */
  stderrLevel?: LogLevel | 'off';
}

export const DEFAULT_LOG_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_LOG_KEEP = 3;

const rank = (level: LogLevel) => LOG_LEVELS.indexOf(level);

/** evoflux.log -> evoflux.1.log -> ... -> evoflux.N.log (the oldest is dropped). */
export function rotateLogFile(file: string, keep: number, maxBytes: number): void {
  // Another process sharing the file may have rotated it already: then there is nothing to do.
  const size = statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined || size <= maxBytes) return;
  const { dir, name, ext } = path.parse(file);
  const archive = (i: number) => path.join(dir, `${name}.${i}${ext}`);
  for (let i = keep - 1; i >= 1; i--) {
    try {
      renameSync(archive(i), archive(i + 1));
    } catch {
      /* no such archive yet */
    }
  }
  renameSync(file, archive(1));
}

/** Creates the file 0600 when missing, so no line is ever written to a file others can read. */
function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}

interface FileTransport {
  level: string | false;
  maxSize: number;
  sync: boolean;
  writeOptions: { flag: string; mode: number; encoding: string };
  format: unknown;
  resolvePathFn: () => string;
  archiveLogFn: (file: { toString(): string }) => void;
}

interface ElectronLogger {
  transports: { file: FileTransport };
  processInternalErrorFn(e: Error): void;
  error(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  info(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}

type LoggerClass = new (options: {
  logId: string;
  dependencies: { externalApi: unknown };
  transportFactories: Record<string, (logger: unknown, deps: unknown) => unknown>;
  variables: Record<string, string>;
}) => ElectronLogger;

/**
 * electron-log's Logger with its Node file transport, and nothing else: the package's default
 * Node logger also builds console, IPC and remote transports, which load node:https and
 * node:child_process (tens of milliseconds at the start of `mcp` for nothing we use).
 */
function openBackend(options: Required<Omit<LogOptions, 'stderrLevel'>>): ElectronLogger {
  // Loaded on first use (see the file comment): require, not import, keeps it lazy in the bundle.
  const Logger = require('electron-log/src/core/Logger.js') as LoggerClass;
  const fileTransport = require('electron-log/src/node/transports/file/index.js');
  const dir = path.dirname(options.file);
  // The file transport asks for these only to build its default path, which resolvePathFn replaces.
  const externalApi = {
    getPathVariables: () => ({
      appName: 'evoflux-memory',
      libraryDefaultDir: dir,
      libraryTemplate: dir,
      userData: dir,
    }),
  };
  // electron-log reports its own trouble (a file it cannot write) through a `console` transport:
  // stderr here, never stdout, which may carry the MCP protocol. Level false: nothing else.
  const stderrTransport = () =>
    Object.assign(
      ({ data }: { data: unknown[] }) => void process.stderr.write(`evoflux log: ${data.map(String).join(' ')}\n`),
      { level: false },
    );
  const backend = new Logger({
    logId: `evoflux:${options.file}`,
    dependencies: { externalApi },
    transportFactories: { file: fileTransport, console: stderrTransport },
    variables: { processType: 'main' },
  });
  // A transport that throws is reported (electron-log would drop it silently).
  backend.processInternalErrorFn = (e) => void process.stderr.write(`evoflux log: ${e.stack ?? e.message}\n`);
  const file = backend.transports.file;
  file.level = options.level;
  file.maxSize = options.maxBytes;
  file.sync = true;
  file.writeOptions = { flag: 'a', mode: 0o600, encoding: 'utf8' };
  file.resolvePathFn = () => options.file;
  file.archiveLogFn = () => rotateLogFile(options.file, options.keep, options.maxBytes);
  file.format = ({ data, level, message }: { data: unknown[]; level: string; message: { date: Date } }) => [
    `${message.date.toISOString()} ${level.toUpperCase().padEnd(5)} ${currentKind}[${process.pid}]`,
    ...data,
  ];
  ensurePrivateFile(options.file);
  return backend;
}

function toStderr(level: LogLevel, message: string, details: unknown[]): void {
  const rest = details.map((d) => (d instanceof Error ? (d.stack ?? d.message) : String(d)));
  process.stderr.write(`evoflux ${level}: ${[message, ...rest].join(' ')}\n`);
}

export function createLog(options: LogOptions): Log {
  const level = options.level ?? 'info';
  const stderrLevel = options.stderrLevel ?? 'warn';
  const settings = {
    file: options.file,
    level,
    maxBytes: options.maxBytes ?? DEFAULT_LOG_MAX_BYTES,
    keep: Math.max(1, options.keep ?? DEFAULT_LOG_KEEP),
  };
  let backend: ElectronLogger | null = null;
  let broken = false;
  const write = (at: LogLevel, message: string, details: unknown[]) => {
    if (stderrLevel !== 'off' && rank(at) <= rank(stderrLevel)) toStderr(at, message, details);
    if (rank(at) > rank(level) || broken) return;
    try {
      backend ??= openBackend(settings);
      backend[at](message, ...details);
    } catch (e) {
      // A log that cannot be written must never take the engine down; say so once.
      broken = true;
      process.stderr.write(`evoflux: cannot write the log ${options.file}: ${(e as Error).message}\n`);
    }
  };
  return {
    file: options.file,
    error: (m, ...d) => write('error', m, d),
    warn: (m, ...d) => write('warn', m, d),
    info: (m, ...d) => write('info', m, d),
    debug: (m, ...d) => write('debug', m, d),
  };
}

/** Until an engine opens, process-wide lines go to stderr only. */
const stderrOnly = createLogToStderr();

function createLogToStderr(): Log {
  const write =
    (level: LogLevel) =>
    (message: string, ...details: unknown[]) => {
      if (rank(level) <= rank('warn')) toStderr(level, message, details);
    };
  return { file: '', error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}

let adopted: Log | null = null;

/**
 * The log of the engine this process opened, for code that runs below the engine's services
 * (locks, events, the Dream scheduler). A process opens one engine; a test that opens several
 * sends these lines to the first one still open.
 */
export const processLog: Log = {
  get file() {
    return (adopted ?? stderrOnly).file;
  },
  error: (m, ...d) => (adopted ?? stderrOnly).error(m, ...d),
  warn: (m, ...d) => (adopted ?? stderrOnly).warn(m, ...d),
  info: (m, ...d) => (adopted ?? stderrOnly).info(m, ...d),
  debug: (m, ...d) => (adopted ?? stderrOnly).debug(m, ...d),
};

/** Makes `log` the process log while no other is; returns the release for engine.close(). */
export function adoptProcessLog(log: Log): () => void {
  adopted ??= log;
  return () => {
    if (adopted === log) adopted = null;
  };
}

/** EVOFLUX_LOG_LEVEL when it names a level, else the settings' level. */
export function logLevelFrom(env: NodeJS.ProcessEnv, configured: LogLevel): LogLevel {
  const wanted = env.EVOFLUX_LOG_LEVEL?.trim().toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(wanted ?? '') ? (wanted as LogLevel) : configured;
}
