/** Timing helpers for the agent bench: per-call wall time and per-thread CPU of the server. */
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { split, threadTimes } from './threads';

export const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

export const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

export const p50p99 = (xs: readonly number[]): string => `${ms(pct(xs, 50))} / ${ms(pct(xs, 99))}`;

/**
 * This process's own garbage collections, as [start, end] in performance.now() time. A pause of
 * the client is not the server's time, but it lands in the wall time of the call it interrupts.
 */
const clientPauses: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) clientPauses.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });

const overlap = (from: number, to: number): number =>
  clientPauses.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, from)), 0);

export interface CallSeries {
  wall: number[];
  /** The client's own garbage collection inside each call's wall time (ms). */
  clientGc: number[];
  /**
   * Server CPU per call (ms): its main thread; every other thread (the read-lane workers, two when
   * a search is split across them, and V8's compiler and collector helpers); all threads.
   */
  main: number[];
  offMain: number[];
  total: number[];
}

/**
 * Runs `call(i)` n times, one after another, timing each as the client sees it and reading the
 * server's per-thread CPU around it.
 */
export async function series(pid: number, n: number, call: (i: number) => Promise<unknown>): Promise<CallSeries> {
  const out: CallSeries = { wall: [], clientGc: [], main: [], offMain: [], total: [] };
  // The bench's own heap holds every fact it loaded: collect what earlier steps left before the
  // series starts (the runner exposes gc), rather than in the middle of some call of it.
  (globalThis as { gc?: () => void }).gc?.();
  clientPauses.length = 0;
  const spans: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const before = threadTimes(pid);
    const t0 = performance.now();
    await call(i);
    const t1 = performance.now();
    out.wall.push(t1 - t0);
    spans.push([t0, t1]);
    const cpu = split(pid, before, threadTimes(pid));
    out.main.push(cpu.main);
    out.offMain.push(cpu.total - cpu.main);
    out.total.push(cpu.total);
  }
  // GC entries reach the observer a tick after the collection.
  await new Promise((resolve) => setImmediate(resolve));
  out.clientGc = spans.map(([a, b]) => overlap(a, b));
  return out;
}

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** One line: wall p50/p99, then CPU per call (p50) by thread. */
export const describeSeries = (s: CallSeries): string =>
  `wall p50/p99 ${p50p99(s.wall)} ms; server CPU p50 ${ms(pct(s.total, 50))} ms ` +
  `(main ${ms(pct(s.main, 50))}, off main ${ms(pct(s.offMain, 50))}; off main mean ${ms(mean(s.offMain))})` +
  clientGcNote(s);

/** How much of the wall time was the client collecting its own garbage, when any was. */
function clientGcNote(s: CallSeries): string {
  const hit = s.clientGc.filter((x) => x > 0);
  return hit.length ? `; the client's own GC inside ${hit.length} calls, at most ${ms(Math.max(...hit))} ms` : '';
}

/** A target check for the printed table. */
export const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT MET');
