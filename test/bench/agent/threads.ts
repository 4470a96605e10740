/**
 * CPU time per thread of another process, from Linux's /proc/<pid>/task/<tid>/schedstat (the
 * first field is the time the thread has run, in nanoseconds). Node names all its threads
 * "node", so only the main thread can be told apart (its id is the pid).
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';

export type ThreadTimes = Map<number, number>;

/** Nanoseconds of CPU each thread of `pid` has used so far. */
export function threadTimes(pid: number): ThreadTimes {
  const times: ThreadTimes = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      times.set(Number(tid), ns);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

/**
 * The threads of `pid`, the main thread first, then in the order they started (their start time
 * since boot, field 22 of /proc/<pid>/task/<tid>/stat; the thread id breaks ties).
 */
export function threadStartOrder(pid: number): number[] {
  const started: [number, number][] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      started.push([Number(tid), Number(fields[19])]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  started.sort(([a, at], [b, bt]) => (a === pid ? -1 : b === pid ? 1 : at - bt || a - b));
  return started.map(([tid]) => tid);
}

export interface ThreadSplit {
  /** Milliseconds of CPU in the window: the main thread's, and all threads'. */
  main: number;
  total: number;
}

/** Where the CPU went between two snapshots: the main thread, and all threads. */
export function split(pid: number, before: ThreadTimes, after: ThreadTimes): ThreadSplit {
  let main = 0;
  let total = 0;
  for (const [tid, ns] of after) {
    const spent = (ns - (before.get(tid) ?? 0)) / 1e6;
    total += spent;
    if (tid === pid) main = spent;
  }
  return { main, total };
}

/** The process's resident memory (VmRSS), in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * Where the resident memory sits, in MB, by mapping: the node binary's pages, anonymous memory
 * (V8 heaps and the native allocator's thread arenas), the allocator's main heap, everything else
 * (libraries, the database's memory map and shared memory).
 */
export function rssParts(pid: number): { node: number; anonymous: number; heap: number; other: number } {
  const parts = { node: 0, anonymous: 0, heap: 0, other: 0 };
  const node = realpathSync(process.execPath);
  let part: keyof typeof parts = 'other';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[1]!;
      part = name === '' ? 'anonymous' : name === '[heap]' ? 'heap' : name === node ? 'node' : 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss) parts[part] += Number(rss[1]) / 1024;
  }
  return parts;
}

/** The whole process's CPU so far (all threads), in ms. */
export const processCpuMs = (pid: number): number => [...threadTimes(pid).values()].reduce((n, x) => n + x, 0) / 1e6;

/**
 * Waits until the process has been idle (under 2% of a core) for `quietMs`, at least `minMs`
 * after the call and at most `maxMs`: background work (index maintenance) is done.
 */
export async function waitIdle(pid: number, minMs: number, maxMs = 120_000, quietMs = 1000): Promise<number> {
  const t0 = Date.now();
  let last = processCpuMs(pid);
  let quietSince = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = processCpuMs(pid);
    if (now - last > 2) quietSince = Date.now();
    last = now;
    const elapsed = Date.now() - t0;
    if ((elapsed >= minMs && Date.now() - quietSince >= quietMs) || elapsed >= maxMs) return elapsed;
  }
}
