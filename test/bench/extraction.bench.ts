/**
 * Extraction figures: rule extractor throughput (messages per second), end-to-end extraction
 * runs (claim + extract + store + cursor) per second, the rule extractor's precision and recall
 * on the labelled set, and the legacy import of 50k bullets over 1k source sessions with its
 * longest single write transaction. Targets: import under 10 s, no write transaction over 50 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openEngine } from '../../src/main/engine';
import { ManualClock } from '../../src/shared/clock';
import { defaultSettings } from '../../src/main/settings';
import { writeTx } from '../../src/main/store/db';
import { insertSession } from '../../src/main/store/sessions';
import { appendMessage } from '../../src/main/store/messages';
import { newId } from '../../src/shared/ids';
import { extractSync, loadEnglish } from '../../src/main/memory/extraction/rule-extractor';
import type { TranscriptEntry } from '../../src/main/memory/extraction/types';
import { labelledSnippets } from '../fixtures/extraction-labelled';
import { formatLabelled, scoreLabelled } from '../helpers/labelled-score';
import { writeLegacyNotes } from '../fixtures/legacy-notes';
import { runBench } from './bench-main';

const LINES = [
  'Can you look at the failing test in the parser?',
  'Thanks, that works.',
  'We decided to use Postgres for the event store.',
  'I prefer short answers with code.',
  'Please rename the variable to something clearer.',
  'The project uses pnpm workspaces.',
  'Maybe we should try a different approach here, what do you think?',
  'Never push directly to the main branch.',
  'Here is the stack trace: TypeError at line 42 in src/index.ts.',
  'Ok, run the build now and tell me what breaks.',
];

function ruleThroughput() {
  const entries: TranscriptEntry[] = Array.from({ length: 20_000 }, (_, i) => ({
    messageId: `m${i}`,
    seq: i + 1,
    role: i % 2 ? 'assistant' : 'user',
    text:
      i % 2
        ? 'Sure, here is the change you asked for, with a short explanation of why.'
        : `${LINES[i % LINES.length]} (${i})`,
  }));
  for (let i = 0; i < 2000; i += 20) extractSync({ entries: entries.slice(i, i + 20) }); // warm-up
  const t0 = performance.now();
  let candidates = 0;
  for (let i = 0; i < entries.length; i += 20) candidates += extractSync({ entries: entries.slice(i, i + 20) }).length;
  const s = (performance.now() - t0) / 1000;
  console.log(
    `rule extractor: ${Math.round(entries.length / s).toLocaleString('en')} messages/s (${entries.length} messages, windows of 20, ${candidates} candidates)`,
  );
}

function labelledScore() {
  for (const style of ['coding', 'personal'] as const) {
    console.log(formatLabelled(`labelled ${style}`, scoreLabelled(labelledSnippets.filter((s) => s.style === style))));
  }
  console.log(formatLabelled('labelled, both styles', scoreLabelled()));
}

async function endToEnd(home: string) {
  const clock = new ManualClock();
  const settings = defaultSettings();
  settings.extraction.enabled = false; // drive runs by hand
  settings.extraction.legacyImportOnStartup = false;
  const engine = openEngine({ home, clock, settings });
  const sessions = 300;
  const ids: string[] = [];
  writeTx(engine.db, () => {
    for (let s = 0; s < sessions; s++) {
      const id = newId();
      ids.push(id);
      insertSession(engine.db, {
        id,
        kind: 'top-level',
        parentSessionId: null,
        projectId: `p${s % 10}`,
        workspace: null,
        folderId: null,
        agentName: null,
        title: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      for (let m = 0; m < 20; m++) {
        appendMessage(
          engine.db,
          {
            id: newId(),
            sessionId: id,
            role: m % 2 ? 'assistant' : 'user',
            content: m % 2 ? 'Done.' : `${LINES[(s + m) % LINES.length]} #${s}`,
          },
          clock.now(),
        );
      }
    }
  });
  const t0 = performance.now();
  let stored = 0;
  for (const id of ids) stored += (await engine.extraction.runNow(id)).factsStored;
  const s = (performance.now() - t0) / 1000;
  console.log(
    `extraction runs (rules, 20 messages each, claim + store + cursor): ${Math.round(sessions / s)} runs/s, ${Math.round((sessions * 20) / s).toLocaleString('en')} messages/s, ${stored} facts`,
  );
  await engine.close();
}

async function legacyImport(home: string) {
  const clock = new ManualClock();
  const settings = defaultSettings();
  settings.extraction.legacyImportOnStartup = false;
  const engine = openEngine({ home, clock, settings });
  const ids = Array.from({ length: 1000 }, () => newId());
  writeTx(engine.db, () => {
    ids.forEach((id, i) =>
      insertSession(engine.db, {
        id,
        kind: 'top-level',
        parentSessionId: null,
        projectId: `p${i % 20}`,
        workspace: null,
        folderId: null,
        agentName: null,
        title: null,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      }),
    );
  });
  const notes = path.join(home, 'legacy-notes');
  writeLegacyNotes(notes, ids, { unique: 45, shared: 5, files: 60 });
  // A live "turn" timer: how late does the event loop answer while the import runs?
  let worstLag = 0;
  let expected = performance.now() + 5;
  const lag = setInterval(() => {
    const now = performance.now();
    worstLag = Math.max(worstLag, now - expected);
    expected = now + 5;
  }, 5);
  const cpu0 = process.cpuUsage();
  const r = await engine.legacyImport.run({ from: notes });
  const cpu = process.cpuUsage(cpu0);
  clearInterval(lag);
  const ok = r.durationMs < 10_000 && r.longestTxMs <= 50;
  console.log(
    `legacy import: ${r.bullets.toLocaleString('en')} bullets over ${r.sessions} sessions (${r.files} files) in ${r.durationMs} ms; ` +
      `${r.transactions} write transactions, p99 ${r.p99TxMs} ms, longest ${r.longestTxMs} ms; ` +
      `CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores); ${r.factsCreated.toLocaleString('en')} facts, ${r.evidenceCreated.toLocaleString('en')} evidence rows; ` +
      `worst event-loop lag ${worstLag.toFixed(1)} ms — targets (< 10 s, tx <= 50 ms): ${ok ? 'met' : 'MISSED'}`,
  );
  const t0 = performance.now();
  const again = await engine.legacyImport.run({ from: notes, force: true });
  console.log(
    `legacy import forced rerun (all sessions already imported): ${Math.round(performance.now() - t0)} ms, ${again.sessionsAlreadyImported} skipped`,
  );
  await engine.close();
  if (!ok) process.exitCode = 1;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evoflux-bench-extraction-'));
  try {
    const t0 = performance.now();
    await loadEnglish();
    console.log(`English model (wink-nlp) loaded on first use in ${Math.round(performance.now() - t0)} ms`);
    ruleThroughput();
    labelledScore();
    await endToEnd(path.join(dir, 'e2e'));
    await legacyImport(path.join(dir, 'legacy'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
