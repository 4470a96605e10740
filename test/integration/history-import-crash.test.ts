import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestEngine, tempHome, type TestEngine } from '../helpers/home';
import { writeChatGptExport } from '../fixtures/history-exports';

const CHILD = path.resolve(__dirname, '../fixtures/history-import-child.ts');
const CONVERSATIONS = 24;
const MESSAGES = 450; // eight write transactions per conversation

const homes: { cleanup(): void }[] = [];
afterAll(() => homes.forEach((h) => h.cleanup()));

/** Starts the child and SIGKILLs it once it has committed `after` conversations. */
async function importAndKill(home: string, file: string, after: number): Promise<number> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', CHILD, home, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const seen = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      const n = Number([...out.matchAll(/imported (\d+)/g)].pop()?.[1] ?? 0);
      if (n >= after && !child.killed) {
        child.kill('SIGKILL');
        resolve(n);
      }
      if (out.includes('done ')) reject(new Error('the child finished before it could be killed'));
    });
  });
  await new Promise((resolve) => child.on('exit', resolve));
  return seen;
}

/** Every conversation's transcript: role and text in order, and whether seqs run 1..n. */
function transcripts(t: TestEngine): Map<string, string[]> {
  const rows = t.engine.db
    .prepare(
      `SELECT c.original_id AS id, m.seq, m.role, m.content FROM import_conversations c
       JOIN session_messages m ON m.session_id = c.session_id ORDER BY c.original_id, m.seq`,
    )
    .all() as { id: string; seq: number; role: string; content: string }[];
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.id) ?? [];
    expect(r.seq).toBe(list.length + 1);
    list.push(`${r.role}: ${r.content}`);
    out.set(r.id, list);
  }
  return out;
}

describe('SIGKILL mid-import, then restart', () => {
  it('continues where it stopped: nothing lost, nothing doubled', async () => {
    const work = tempHome();
    const home = tempHome();
    const clean = tempHome();
    homes.push(work, home, clean);
    const file = path.join(work.dir, 'conversations.json');
    await writeChatGptExport(file, { conversations: CONVERSATIONS, messagesPer: MESSAGES });

    const firstKill = await importAndKill(home.dir, file, 4);
    const secondKill = await importAndKill(home.dir, file, 6);
    expect(firstKill).toBeGreaterThanOrEqual(4);
    expect(secondKill).toBeGreaterThanOrEqual(6);

    const t = openTestEngine({ home: home.dir });
    try {
      const committed = t.engine.db
        .prepare("SELECT count(*) FROM import_conversations WHERE content_hash <> ''")
        .pluck();
      const before = committed.get() as number;
      expect(before).toBeGreaterThanOrEqual(firstKill);
      expect(before).toBeLessThan(CONVERSATIONS);

      const report = await t.run('import.conversations', { from: file });
      expect(report.conversations).toBe(CONVERSATIONS);
      expect(report.conversationsCreated + report.conversationsUpdated + report.conversationsUnchanged).toBe(
        CONVERSATIONS,
      );
      expect(report.conversationsUnchanged).toBeGreaterThanOrEqual(before);
      expect(report.messagesAdded + report.messagesAlreadyImported).toBe(CONVERSATIONS * MESSAGES);

      // The same transcripts as one uninterrupted import into another home.
      const reference = openTestEngine({ home: clean.dir });
      try {
        await reference.run('import.conversations', { from: file });
        expect(transcripts(t)).toEqual(transcripts(reference));
      } finally {
        await reference.engine.close();
      }
      const count = (sql: string) => t.engine.db.prepare(sql).pluck().get() as number;
      expect(count('SELECT count(*) FROM sessions')).toBe(CONVERSATIONS);
      expect(count('SELECT count(*) FROM session_messages')).toBe(CONVERSATIONS * MESSAGES);
      expect(count('SELECT count(*) FROM import_messages')).toBe(CONVERSATIONS * MESSAGES);
      expect(count('SELECT count(*) FROM import_conversations WHERE message_count <> ' + MESSAGES)).toBe(0);
      expect(count('SELECT count(*) FROM import_conversations WHERE extraction_pending = 0')).toBe(0);
    } finally {
      await t.engine.close();
    }
  }, 120_000);
});
