import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { migrate } from './migrate';
import { addFactVocabulary } from './fact-vocabulary';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Path to a better-sqlite3 native binding built for another runtime (the Electron shell passes one). */
  nativeBinding?: string;
}

let defaultNativeBinding: string | undefined;

/** The Electron shell calls this once so every connection, writer or reader, loads the Electron-ABI binding. */
export function setDefaultNativeBinding(path: string | undefined): void {
  defaultNativeBinding = path;
}

/** The binding set above; worker threads do not share this module's state, so it is passed to them. */
export const currentNativeBinding = (): string | undefined => defaultNativeBinding;

function applyPragmas(db: Db): void {
  db.pragma('busy_timeout = 5000');
  // NORMAL in WAL mode keeps every committed transaction across a process crash; only an OS
  // crash can lose the last few, which is the trade every desktop SQLite app makes.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Fact keys are hashes, so index pages are touched at random: a 64 MiB page cache and
  // memory-mapped reads keep a million-fact store out of the read() syscall path.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  db.pragma('temp_store = MEMORY');
}

/** WAL pages (4 KiB each) between automatic checkpoints. */
const WAL_CHECKPOINT_PAGES = 3000;

const STATEMENT_CACHE_SIZE = 512;

/** Statement methods that change how it returns rows, for everyone holding it. */
const MODES = ['pluck', 'raw', 'expand', 'safeIntegers'] as const;

/**
 * Makes `db.prepare` return the connection's cached statement for SQL it has prepared before:
 * compiling a statement costs ~0.01-0.1 ms, more than running most of the ones a request needs,
 * and every request runs the same few dozen shapes. The least recently used statements beyond
 * 512 are dropped. A cached statement is shared by every caller of the same SQL, so asking one
 * for a mode (`.pluck()`, `.raw()`...) hands that caller its own freshly compiled statement in
 * that mode instead of changing the shared one (modes are only ever set by chaining).
 */
function cacheStatements(db: Db): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  const shared = (sql: string): Database.Statement => {
    const statement = compile(sql);
    const own = statement as unknown as Record<string, unknown>;
    for (const mode of MODES) {
      own[mode] = (...args: unknown[]) =>
        (compile(sql) as unknown as Record<string, (...a: unknown[]) => unknown>)[mode]!(...args);
    }
    return statement;
  };
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (statement) {
      // Re-inserting keeps the map in least-recently-used order.
      cache.delete(sql);
    } else {
      statement = shared(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  }) as Db['prepare'];
}

/** The single writer connection: WAL, migrated to the latest schema. */
export function openWriter(file: string, options: OpenDatabaseOptions = {}): Db {
  const db = new Database(file, { nativeBinding: options.nativeBinding ?? defaultNativeBinding });
  cacheStatements(db);
  try {
    // Before anything that locks: a second process opening a new home at the same moment waits
    // for the first (switching a new file to WAL takes a lock) instead of failing at once.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    applyPragmas(db);
    // The writer's own checkpoint, every ~12 MB of WAL, is a backstop: it runs inside the commit of
    // some request, so the engine copies the WAL far sooner, between requests (wal-checkpoints.ts).
    // Once a checkpoint lets the log start over, a file a burst or a long reader grew past that is
    // cut back to the same size (index maintenance truncates it when idle).
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    db.pragma(`journal_size_limit = ${WAL_CHECKPOINT_PAGES * (db.pragma('page_size', { simple: true }) as number)}`);
    // Forget must not leave the forgotten text in free space: deleted cells and freed pages are
    // zeroed. Measured on the store bench, it costs nothing visible (deletes are a small share).
    db.pragma('secure_delete = ON');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A read-lane connection for worker threads: read-only at the file and the query level. */
export function openReader(file: string, options: OpenDatabaseOptions = {}): Db {
  const db = new Database(file, {
    readonly: true,
    fileMustExist: true,
    nativeBinding: options.nativeBinding ?? defaultNativeBinding,
  });
  cacheStatements(db);
  applyPragmas(db);
  // Its temp schema is written once, before the connection is closed to every write.
  addFactVocabulary(db);
  db.pragma('query_only = ON');
  return db;
}

/**
 * Unmaps the database file (SQLite maps it again, page by page, as later reads touch it). Every
 * mapped page the writer has read stays in the process's resident size while the map lives: at
 * 100k facts ~18 MB, for a server that sits idle between an agent's turns. SQLite leaves the map
 * alone while a statement still holds one of its pages, so this is safe between any two calls.
 */
export function releaseMemoryMap(db: Db): void {
  const limit = db.pragma('mmap_size', { simple: true }) as number;
  if (limit <= 0) return;
  db.pragma('mmap_size = 0');
  db.pragma(`mmap_size = ${limit}`);
}

/**
 * Checkpoints the whole WAL into memory.db and truncates it to zero bytes, so page images written
 * before a forget (which still hold the forgotten rows) do not linger in memory.db-wal. Waits at
 * most `waitMs` for readers; false when one kept it from finishing (try again later).
 */
export function truncateWal(db: Db, waitMs = 200): boolean {
  const previous = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${waitMs}`);
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return result?.busy === 0;
  } finally {
    db.pragma(`busy_timeout = ${previous}`);
  }
}

/** What one passive checkpoint found: frames in the WAL and frames now copied into memory.db. */
export interface CheckpointResult {
  /** A reader or another checkpointer kept it from running at all. */
  busy: boolean;
  /** Frames in the WAL (-1 when the database is not in WAL mode). */
  walFrames: number;
  /** Frames copied into memory.db, this checkpoint's and earlier ones'. */
  copiedFrames: number;
}

/**
 * Copies every committed page no reader still needs from the WAL into memory.db, without waiting
 * for readers (PASSIVE). Once all frames are copied, the writer's next transaction starts the WAL
 * over from its beginning instead of growing it.
 */
export function passiveCheckpoint(db: Db): CheckpointResult {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  return { busy: row!.busy !== 0, walFrames: row!.log, copiedFrames: row!.checkpointed };
}

const writeTxObservers = new Set<(ms: number, db: Db) => void>();

/**
 * How long the writer is held: `fn` gets the duration of every write transaction in this process
 * (BEGIN to COMMIT or ROLLBACK, lock wait included) and its connection, until the returned
 * function is called.
 */
export function observeWriteTransactions(fn: (ms: number, db: Db) => void): () => void {
  writeTxObservers.add(fn);
  return () => void writeTxObservers.delete(fn);
}

/**
 * Runs `fn` inside BEGIN IMMEDIATE so the write lock is taken up front: a busy database fails
 * fast at BEGIN (after busy_timeout) instead of deadlocking halfway through a read-then-write.
 */
export function writeTx<T>(db: Db, fn: () => T): T {
  if (writeTxObservers.size === 0) return db.transaction(fn).immediate();
  const started = performance.now();
  try {
    return db.transaction(fn).immediate();
  } finally {
    const ms = performance.now() - started;
    for (const observe of writeTxObservers) observe(ms, db);
  }
}

/**
 * Runs `fn` inside one read transaction: its statements all see one snapshot of the store (a
 * search's candidates and the rows it then reads agree), and the connection takes its WAL read
 * lock once instead of once per statement (a recall or a search runs twenty to forty of them).
 */
export function readTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).deferred();
}

export const sqliteVersion = (db: Db): string => (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;

/**
 * A signature of the database's content as this connection sees it: another connection's commit
 * moves data_version, this connection's own writes move total_changes.
 */
export function contentSignature(db: Db): string {
  const dataVersion = db.pragma('data_version', { simple: true }) as number;
  const changes = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  return `${dataVersion}:${changes}`;
}

/** The newest applied migration, read without loading the migrations (the read lane's ping). */
export const appliedSchemaVersion = (db: Db): number =>
  (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;

/**
 * The read lane's page cache, in KiB. Another connection's commit (every memory_begin_turn writes
 * its message before the next recall) empties a reader's cache, so it only serves runs of reads
 * without a write between them; pages beyond it come from the OS's file cache in one read() each.
 * What it costs is memory the native allocator keeps after the worker stops (an idle server rests
 * its workers). At 100k facts a 16 MB cache left ~23 MB resident and 4 MB ~10 MB; 2 MB gave back
 * ~2 MB more per worker, and 1 MB another 3-5 MB in all (an idle server at 76 MB against 79-81),
 * with searches and recalls at 100k costing the same as with 2 MB (in-process, and over MCP on six
 * fresh servers each, alternating: within 2%).
 */
export const LANE_CACHE_KIB = 1024;

/**
 * The read lane's connection: a bounded page cache (LANE_CACHE_KIB) and no memory map. A mapped
 * reader unmaps and maps the file again after another connection's commit, so each page the next
 * query touches costs a page fault: at 100k facts a recall right after a write took 2.5-2.9 ms
 * mapped against 1.0-1.3 ms read through this cache, and a search 3.0-3.4 against 1.3-1.6 ms.
 */
export function openLaneConnection(file: string, options: OpenDatabaseOptions = {}): Db {
  const reader = openReader(file, options);
  reader.pragma(`cache_size = -${LANE_CACHE_KIB}`);
  reader.pragma('mmap_size = 0');
  return reader;
}
