/**
 * Conversation import benchmark (`npm run bench -- import`): a generated ChatGPT-shaped export of
 * 5,000 conversations / 200,000 messages written to a temp file, imported by the compiled CLI
 * (`import conversations`, as a person runs it, from a folder outside the checkout), then the
 * same command again with --wait-for-extraction, which finds every conversation already there
 * and runs extraction over the imported sessions. Peak RSS is the child's VmHWM, sampled from
 * /proc while it runs; the longest write transactions are the ones each command measured. Prints
 * the figures against their targets; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { tempHome } from '../helpers/home';
import { BIN } from '../helpers/cli';
import { ensureBuilt } from '../helpers/build';
import { writeChatGptExport } from '../fixtures/history-exports';
import { runBench } from './bench-main';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 5_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES_PER ?? 40);
const targets = { importS: 30, rssMb: 500, txMs: 50 };
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Peak resident set of a live process (kB → MB), or 0 once it is gone. */
function peakRssMb(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

interface Run {
  out: any;
  wallS: number;
  peakRssMb: number;
}

/** One CLI command in a child process, its peak RSS sampled every 20 ms until it exits. */
function cli(args: string[]): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args, '--json'], {
    cwd: os.tmpdir(),
    env: { ...process.env, EVOFLUX_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let peak = 0;
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid!))), 20);
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`evoflux-memory ${args.join(' ')} exited ${code}: ${stderr}`));
      resolve({ out: JSON.parse(stdout), wallS: (performance.now() - started) / 1000, peakRssMb: peak });
    });
  });
}

async function main() {
  ensureBuilt();
  const work = tempHome('evoflux-bench-import-');
  try {
    const file = path.join(work.dir, 'conversations.json');
    const home = path.join(work.dir, 'home');
    const g0 = performance.now();
    const generated = await writeChatGptExport(file, { conversations: CONVERSATIONS, messagesPer: MESSAGES });
    console.log(
      `export: ${generated.conversations} conversations, ${generated.messages} messages, ` +
        `${(statSync(file).size / 1024 / 1024).toFixed(1)} MB (generated in ${((performance.now() - g0) / 1000).toFixed(1)} s)`,
    );

    const imported = await cli(['import', 'conversations', '--from', file, '--home', home]);
    const r = imported.out;
    console.log(
      `import: ${r.conversationsCreated} sessions, ${r.messagesAdded} messages in ${imported.wallS.toFixed(1)} s wall ` +
        `(${(r.durationMs / 1000).toFixed(1)} s in the command, ${Math.round(r.messagesAdded / (r.durationMs / 1000))} messages/s; ` +
        `target < ${targets.importS} s: ${verdict(imported.wallS < targets.importS)})`,
    );
    console.log(
      `peak RSS of the importing process: ${imported.peakRssMb.toFixed(0)} MB (target < ${targets.rssMb} MB: ` +
        `${verdict(imported.peakRssMb > 0 && imported.peakRssMb < targets.rssMb)})`,
    );
    console.log(
      `longest write transaction while importing: ${r.longestTxMs} ms, p99 ${r.p99TxMs} ms, of ${r.transactions} ` +
        `(target < ${targets.txMs} ms: ${verdict(r.longestTxMs < targets.txMs)})`,
    );

    const extracted = await cli(['import', 'conversations', '--from', file, '--wait-for-extraction', '--home', home]);
    const e = extracted.out;
    const extractionS = extracted.wallS - e.durationMs / 1000;
    console.log(
      `import again: ${e.conversationsUnchanged} unchanged, ${e.messagesAdded} messages added, ${(e.durationMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `extraction over the imported sessions: ${e.extraction.sessions} sessions in ${extractionS.toFixed(1)} s ` +
        `(${e.extraction.failed} failed, ${e.extraction.pendingSessions} left); longest write transaction ` +
        `${e.extraction.longestTxMs} ms (target < ${targets.txMs} ms: ${verdict(e.extraction.longestTxMs < targets.txMs)}); ` +
        `peak RSS ${extracted.peakRssMb.toFixed(0)} MB`,
    );
  } finally {
    work.cleanup();
  }
}

runBench(main);
