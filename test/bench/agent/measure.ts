/** Timing helpers for the agent bench: per-call wall time and per-thread CPU of the server. */
import { performance } from 'node:perf_hooks';
import { split, threadTimes } from './threads';

export const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

export const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

export const p50p99 = (xs: readonly number[]): string => `${ms(pct(xs, 50))} / ${ms(pct(xs, 99))}`;

export interface CallSeries {
  wall: number[];
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
  const out: CallSeries = { wall: [], main: [], offMain: [], total: [] };
  for (let i = 0; i < n; i++) {
    const before = threadTimes(pid);
    const t0 = performance.now();
    await call(i);
    out.wall.push(performance.now() - t0);
    const cpu = split(pid, before, threadTimes(pid));
    out.main.push(cpu.main);
    out.offMain.push(cpu.total - cpu.main);
    out.total.push(cpu.total);
  }
  return out;
}

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** One line: wall p50/p99, then CPU per call (p50) by thread. */
export const describeSeries = (s: CallSeries): string =>
  `wall p50/p99 ${p50p99(s.wall)} ms; server CPU p50 ${ms(pct(s.total, 50))} ms ` +
  `(main ${ms(pct(s.main, 50))}, off main ${ms(pct(s.offMain, 50))}; off main mean ${ms(mean(s.offMain))})`;

/** A target check for the printed table. */
export const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT MET');
